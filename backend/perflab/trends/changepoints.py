"""Change points in a metric's history: a t statistic maximised over splits, on every run, with critical
values calibrated by simulation, applied by binary segmentation. Pure (standard library only).

Method. Each experiment i contributes y_i, the mean of its runs' logarithms (a ratio scale: a step of
-25% is the same size at 10k and at 100 req/s; raw values when some are <= 0). For every split t leaving
at least ``MIN_SIZE`` experiments on each side, T_t = |mean(after) - mean(before)| / (s * sqrt(1/t +
1/(n - t))), with s the pooled standard deviation of y around the two segment means (n - 2 degrees of
freedom). The statistic is K = max_t T_t; the split reaching it is the candidate. A split with K at or
above the critical value for n experiments and the chosen false-alarm rate is reported, and both halves
are searched again (binary segmentation), each at half the level of the segment it came from.

Why this shape. Every run feeds y_i (a mean of 3 runs is sqrt(3) times less noisy than one run), while
the noise s is measured between experiments, so an experiment effect (a different day, VM or kernel
shared by an experiment's runs) is part of the noise, not mistaken for a step. Exchanging single runs
across experiments, or a noise taken from the spread within experiments, would ignore that effect and
cry wolf (``tests/trends/test_changepoint_simulation.py`` measures it). A rank test on experiment
medians (the method this replaces) is exact but cannot reach p < 0.024 on 10 points at all.

False alarms. Under "no change" with independent normal y, K is pivotal: its distribution depends only
on n. ``critical_values.py`` holds its upper quantiles per n from 20,000 simulated flat histories
(``calibrate.py``); alpha between tabulated levels is interpolated in log alpha, n between tabulated
lengths linearly, and past 500 extrapolated in log n. A history that did not move shows one or more
change points with probability about alpha (only the first test can fire on it). The simulation tests
measure that rate on fresh draws for 6 to 300 experiments, with normal, log-normal, heavy-tailed and
two-mode run noise and with experiment effects.

Cost: O(n) per segment tested (prefix sums), no resampling at request time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from perflab.trends import critical_values

ALPHA = 0.05
MIN_SIZE = 3
MIN_EXPERIMENTS = 2 * MIN_SIZE
MIN_ALPHA = critical_values.ALPHAS[0] if critical_values.ALPHAS else 0.005
MAX_ALPHA = critical_values.ALPHAS[-1] if critical_values.ALPHAS else 0.2
# The power at which "the smallest step this history can detect" is quoted (z of 0.8).
POWER_Z = 0.8416

METHOD = {
    "name": "max-t-segmentation",
    "description": ("a t statistic on the mean log value of every experiment's runs, maximised over splits with "
                    "at least 3 experiments a side, critical values from simulated flat histories, binary "
                    "segmentation; a history that did not move shows a change point with probability about alpha"),
    "alpha": ALPHA,
    "min_size": MIN_SIZE,
    "min_experiments": MIN_EXPERIMENTS,
}


@dataclass
class ChangePoint:
    index: int  # the first experiment after the change
    p_value: float  # bounded to the tabulated range [0.005, 0.2]
    before_median: float
    after_median: float

    @property
    def delta_pct(self) -> float | None:
        if self.before_median == 0:
            return None
        return (self.after_median - self.before_median) / abs(self.before_median) * 100.0


def median(values: Sequence[float]) -> float:
    s = sorted(values)
    m = len(s) // 2
    return s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2.0


def max_t(y: Sequence[float], min_size: int) -> tuple[float, int]:
    """(K, t): the largest T_t over splits leaving at least ``min_size`` values on each side, and the
    number of values before that split. K is 0 for fewer than 2 * min_size values or constant values,
    infinite for a noiseless step."""
    n = len(y)
    if n < 2 * min_size:
        return 0.0, 0
    centre = sum(y) / n
    s1 = s2 = 0.0
    p1, p2 = [0.0], [0.0]
    for v in y:
        d = v - centre
        s1 += d
        s2 += d * d
        p1.append(s1)
        p2.append(s2)
    if s2 <= 1e-24 * n:
        return 0.0, 0
    best, best_t = -1.0, 0
    for t in range(min_size, n - min_size + 1):
        mb = p1[t] / t
        ma = (s1 - p1[t]) / (n - t)
        ss = max(0.0, p2[t] - t * mb * mb) + max(0.0, (s2 - p2[t]) - (n - t) * ma * ma)
        diff = abs(ma - mb)
        se2 = ss / (n - 2) * (1.0 / t + 1.0 / (n - t))
        stat = diff / math.sqrt(se2) if se2 > 1e-24 * s2 else math.inf
        if stat > best:
            best, best_t = stat, t
    return best, best_t


def _row(n: int) -> list[float]:
    """Upper quantiles of K for n values, one per tabulated alpha."""
    table = critical_values.CRITICAL
    if n in table:
        return list(table[n])
    lengths = sorted(table)
    if n > lengths[-1]:  # past the table: the quantiles grow about linearly in log n there
        a, b = lengths[-2], lengths[-1]
        w = (math.log(n) - math.log(a)) / (math.log(b) - math.log(a))
    else:
        b = next(m for m in lengths if m > n)
        a = max(m for m in lengths if m < n)
        w = (n - a) / (b - a)
    return [qa + w * (qb - qa) for qa, qb in zip(table[a], table[b], strict=True)]


def critical(n: int, alpha: float) -> float:
    """The value of K a flat history of n experiments reaches with probability alpha."""
    alphas = critical_values.ALPHAS
    row = _row(n)
    la = math.log(min(max(alpha, alphas[0]), alphas[-1]))
    for i in range(len(alphas) - 1):
        lo, hi = math.log(alphas[i]), math.log(alphas[i + 1])
        if lo <= la <= hi:
            w = (la - lo) / (hi - lo)
            return row[i] + w * (row[i + 1] - row[i])
    return row[-1]


def p_value(n: int, k: float) -> float:
    """The tail probability of K >= k for n experiments, interpolated in the table; bounded to its range."""
    alphas = critical_values.ALPHAS
    row = _row(n)
    if k >= row[0]:
        return alphas[0]
    if k <= row[-1]:
        return alphas[-1]
    for i in range(len(alphas) - 1):
        if row[i + 1] <= k <= row[i]:
            w = (row[i] - k) / (row[i] - row[i + 1])
            return math.exp(math.log(alphas[i]) + w * (math.log(alphas[i + 1]) - math.log(alphas[i])))
    return alphas[-1]


def levels(groups: Sequence[Sequence[float]]) -> tuple[list[float], bool]:
    """Each experiment's y: the mean log of its runs when every value is positive (then True), else the
    mean of the raw values (then False)."""
    positive = all(v > 0 for g in groups for v in g)
    if positive:
        return [sum(math.log(v) for v in g) / len(g) for g in groups], True
    return [sum(g) / len(g) for g in groups], False


def _as_groups(values: Sequence[float | Sequence[float]]) -> list[list[float]]:
    return [[float(v)] if isinstance(v, (int, float)) else [float(x) for x in v] for v in values]


def detect(values: Sequence[float | Sequence[float]], *, alpha: float = ALPHA,
           min_size: int = MIN_SIZE) -> list[ChangePoint]:
    """Change points of a history in time order, sorted by index. Each item is one experiment: its runs'
    values (or one value). Experiments without runs must be left out by the caller."""
    groups = _as_groups(values)
    if any(not g for g in groups):
        raise ValueError("every experiment needs at least one value")
    y, _ = levels(groups)
    found: list[ChangePoint] = []
    # (lo, hi, depth): each half of a split is tested at half its parent's level, so beside real steps
    # the chance of a spurious extra change point also stays about alpha per level of splitting.
    stack = [(0, len(y), 0)]
    while stack:
        lo, hi, depth = stack.pop()
        k, t = max_t(y[lo:hi], min_size)
        if t == 0 or k < critical(hi - lo, alpha / 2**depth):
            continue
        cut = lo + t
        found.append(ChangePoint(index=cut, p_value=p_value(hi - lo, k), before_median=0.0, after_median=0.0))
        stack.append((lo, cut, depth + 1))
        stack.append((cut, hi, depth + 1))
    found.sort(key=lambda c: c.index)
    # Before/after medians between neighbouring change points: the level each side settled at.
    medians = [median(g) for g in groups]
    bounds = [0] + [c.index for c in found] + [len(groups)]
    for i, c in enumerate(found):
        c.before_median = median(medians[bounds[i]:bounds[i + 1]])
        c.after_median = median(medians[bounds[i + 1]:bounds[i + 2]])
    return found


def detectable_step_pct(values: Sequence[float | Sequence[float]], *, alpha: float = ALPHA,
                        found: Sequence[ChangePoint] = (), min_size: int = MIN_SIZE) -> float | None:
    """The smallest step (in %) this history would show 4 times in 5 once ``min_size`` experiments follow
    it, from the noise between experiments around the levels found; None below 2 * min_size experiments
    or when the noise is zero. A normal approximation: about, not exactly."""
    groups = _as_groups(values)
    n = len(groups)
    if n < 2 * min_size:
        return None
    y, logs = levels(groups)
    bounds = [0] + [c.index for c in found] + [n]
    ss, dof = 0.0, 0
    for lo, hi in pairwise(bounds):
        seg = y[lo:hi]
        if not seg:
            continue
        m = sum(seg) / len(seg)
        ss += sum((v - m) ** 2 for v in seg)
        dof += len(seg) - 1
    if dof <= 0 or ss <= 0:
        return None
    s = math.sqrt(ss / dof)
    delta = (critical(n, alpha) + POWER_Z) * s * math.sqrt(1.0 / (n - min_size) + 1.0 / min_size)
    if logs:
        return (math.exp(delta) - 1.0) * 100.0
    level = abs(median([median(g) for g in groups]))
    return delta / level * 100.0 if level > 0 else None
