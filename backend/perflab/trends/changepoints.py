"""Change points in a metric's history: Pettitt's rank test with a permutation p-value, applied by
binary segmentation. Pure (standard library only), so the method can be tested on its own.

Method. For a sequence x_1..x_n (per-experiment medians in time order) Pettitt's statistic is
K = max_t |U_t|, U_t = sum_{i<=t} sum_{j>t} sign(x_j - x_i), the Mann-Whitney count between the
values before and after split t; the split t* reaching K is the candidate. Its p-value comes from a
permutation test: the share of B random reorderings of the same values whose K is at least as large
(p = (1 + #{K_perm >= K}) / (1 + B)). A split with p < alpha is reported and both halves are searched
again the same way (binary segmentation), down to segments of ``min_size`` values.

False alarms. Under "no change" (values exchangeable: any noise distribution, heavy tails included)
the first test rejects with probability at most alpha, and nothing else is tested when it does not,
so the chance of reporting one or more change points on a history that did not move is at most
alpha (default 0.01: one history in a hundred). Ranks make it insensitive to outliers and to the
noise's scale; the permutations make the rate exact for small n, where Pettitt's asymptotic formula
is not. The random reorderings are seeded from the values themselves: the same history always gives
the same answer, while different histories get independent reorderings (one fixed set of reorderings
for every history would misplace the threshold of this discrete statistic for all of them at once:
measured, 5 false alarms in 100 flat histories instead of about 1).

Cost: O(B * n) per segment tested, from ranks computed once (U_t = 2 * sum_{i<=t} r_i - t(n+1)),
and less in practice: counting stops as soon as the answer is settled either way. Measured (one shared
core, CPython 3.11): 12 experiments 0.07 s without a step, 0.3 s with one (its p-value, about 0.002,
needs all reorderings); 300 experiments 0.35 s without a step, 0.9 s with one.
"""

from __future__ import annotations

import hashlib
import random
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

ALPHA = 0.01
PERMUTATIONS = 4999
MIN_SIZE = 3

METHOD = {
    "name": "pettitt-permutation",
    "description": ("Pettitt's rank statistic at every split, p-value from a permutation test, binary "
                    "segmentation; a history that did not move shows a change point with probability <= alpha"),
    "alpha": ALPHA,
    "permutations": PERMUTATIONS,
    "min_size": MIN_SIZE,
}


@dataclass
class ChangePoint:
    index: int  # the first value after the change
    p_value: float
    before_median: float
    after_median: float

    @property
    def delta_pct(self) -> float | None:
        if self.before_median == 0:
            return None
        return (self.after_median - self.before_median) / abs(self.before_median) * 100.0


def _ranks(values: Sequence[float]) -> list[float]:
    """Ranks 1..n, ties sharing their mean rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        mean_rank = (i + j) / 2.0 + 1.0
        for k in range(i, j + 1):
            ranks[order[k]] = mean_rank
        i = j + 1
    return ranks


def _pettitt(ranks: Sequence[float], min_size: int) -> tuple[float, int]:
    """(K, t): the largest |U_t| over splits leaving at least ``min_size`` values on each side, and the
    number of values before that split."""
    n = len(ranks)
    cum = list(accumulate(ranks))
    best, best_t = -1.0, 0
    for t in range(min_size, n - min_size + 1):
        u = abs(2.0 * cum[t - 1] - t * (n + 1))
        if u > best:
            best, best_t = u, t
    return best, best_t


def _k(ranks: Sequence[float], weights: Sequence[float], lo: int, hi: int) -> float:
    """Just K, for the permutations: the hot loop."""
    cum = list(accumulate(ranks))[lo - 1:hi - 1]
    return max(abs(2.0 * c - w) for c, w in zip(cum, weights, strict=True))


def median(values: Sequence[float]) -> float:
    s = sorted(values)
    m = len(s) // 2
    return s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2.0


def _test(values: Sequence[float], alpha: float, permutations: int, min_size: int,
          rng: random.Random) -> tuple[int, float] | None:
    if len(values) < 2 * min_size:
        return None
    ranks = _ranks(values)
    k, t = _pettitt(ranks, min_size)
    if k <= 0:
        return None  # all values equal
    n = len(values)
    lo, hi = min_size, n - min_size + 1
    weights = [t * (n + 1.0) for t in range(lo, hi)]
    # Stop once the p-value cannot fall below alpha any more (same answer, less work), or once it is
    # far below it (under alpha / 5 after 999 or more reorderings: the answer cannot change in practice).
    limit = alpha * (1 + permutations) - 1
    exceed = 0
    done = 0
    shuffled = list(ranks)
    for done in range(1, permutations + 1):
        rng.shuffle(shuffled)
        if _k(shuffled, weights, lo, hi) >= k - 1e-9:
            exceed += 1
            if exceed >= limit:
                return None
        if done >= 999 and done % 500 == 499 and (1 + exceed) / (1 + done) < alpha / 5:
            break
    p = (1 + exceed) / (1 + done)
    return (t, p) if p < alpha else None


def detect(values: Sequence[float], *, alpha: float = ALPHA, permutations: int = PERMUTATIONS,
           min_size: int = MIN_SIZE) -> list[ChangePoint]:
    """Change points of ``values`` in time order, sorted by index."""
    digest = hashlib.sha256(b"".join(struct.pack("<d", float(v)) for v in values)).digest()
    rng = random.Random(int.from_bytes(digest[:8], "little"))
    found: list[ChangePoint] = []
    stack = [(0, len(values))]
    while stack:
        lo, hi = stack.pop()
        hit = _test(values[lo:hi], alpha, permutations, min_size, rng)
        if hit is None:
            continue
        t, p = hit
        cut = lo + t
        found.append(ChangePoint(index=cut, p_value=p, before_median=0.0, after_median=0.0))
        stack.append((lo, cut))
        stack.append((cut, hi))
    found.sort(key=lambda c: c.index)
    # Before/after medians between neighbouring change points: the level each side settled at.
    bounds = [0] + [c.index for c in found] + [len(values)]
    for i, c in enumerate(found):
        c.before_median = median(values[bounds[i]:bounds[i + 1]])
        c.after_median = median(values[bounds[i + 1]:bounds[i + 2]])
    return found
