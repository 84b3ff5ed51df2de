"""Statistics for comparing repeated runs: medians, a bootstrap interval on the change, a verdict.

Method (stated in every comparison, see METHOD): the percentile bootstrap of the difference of
medians. Each side's runs are resampled with replacement, the medians of the two resamples are
compared (as a difference and as a relative change), and the 2.5th and 97.5th percentiles of those
replicates form the 95% interval. The verdict is `better`/`worse` when the interval excludes 0 (in
the direction that is good or bad for the metric), `within_noise` when it contains 0, and
`single_run` when a side has one run, since one run gives no noise estimate.

With the handful of runs engineers make (typically 3), a Monte Carlo bootstrap wastes its time
drawing the same few resamples over and over: the resampled median can only take a few values.
So the distribution of each side's resampled median is computed exactly (order statistics of a
multinomial resample), and the interval is read from the exact distribution of the change, which is
what B -> infinity resamples converge to. Larger groups fall back to B = 2000 Monte Carlo resamples
with a fixed seed, so the same data always gives the same interval.

An A/A comparison (the runs of one experiment against themselves, resampled independently) gives
the noise floor: the relative change that this many runs cannot tell from noise.

Pure: standard library only, no I/O.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Direction = Literal["higher_is_better", "lower_is_better", "neutral"]
Verdict = Literal["better", "worse", "within_noise", "single_run", "increased", "decreased", "no_data", "invalid"]

CONFIDENCE = 0.95
RESAMPLES = 2000
SEED = 20261122
# Exact enumeration when the product of the two median distributions has at most this many points.
EXACT_LIMIT = 40_000
# Groups larger than this use Monte Carlo resampling of the raw values.
EXACT_MAX_N = 40

METHOD = {
    "name": "percentile bootstrap of the difference of medians",
    "confidence": CONFIDENCE,
    "resamples": RESAMPLES,
    "seed": SEED,
    "detail": (
        "Runs of each experiment are resampled with replacement; the 2.5th-97.5th percentiles of the "
        "change between resampled medians form the 95% interval. The resampling distribution of a median "
        "is computed exactly for up to 40 runs (the limit of infinitely many resamples); larger groups use "
        "2000 Monte Carlo resamples with a fixed seed. Verdict: better/worse when the interval excludes 0, "
        "within_noise when it contains 0, single_run when a side has one run (no noise estimate). "
        "Noise floor: the same interval for an A/A comparison of an experiment's runs with themselves."
    ),
}


@dataclass(frozen=True)
class Describe:
    n: int
    median: float | None
    min: float | None
    max: float | None
    mean: float | None
    stdev: float | None


def median(values: Sequence[float]) -> float | None:
    if not values:
        return None
    s = sorted(values)
    n = len(s)
    mid = n // 2
    return float(s[mid]) if n % 2 else (s[mid - 1] + s[mid]) / 2.0


def describe(values: Sequence[float]) -> Describe:
    n = len(values)
    if n == 0:
        return Describe(0, None, None, None, None, None)
    mean = math.fsum(values) / n
    stdev = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else None
    return Describe(n, median(values), float(min(values)), float(max(values)), mean, stdev)


def relative_change(baseline: float | None, value: float | None) -> float | None:
    """value/baseline - 1, or None when it is undefined (no data, or a zero baseline with a change)."""
    if baseline is None or value is None:
        return None
    if baseline == 0:
        return 0.0 if value == 0 else None
    if baseline < 0:
        return None
    return value / baseline - 1.0


def pct(x: float | None, digits: int = 1) -> float | None:
    return None if x is None else round(x * 100.0, digits)


# -- the resampling distribution of a median ---------------------------------------------------------


def median_distribution(values: Sequence[float]) -> list[tuple[float, float]]:
    """[(value, probability)] of the median of a size-n resample (with replacement) of `values`."""
    return list(_median_distribution(tuple(sorted(float(v) for v in values))))


# A comparison asks for the same groups many times (baseline against each experiment, A/A floors).
@functools.lru_cache(maxsize=8192)
def _median_distribution(values: tuple[float, ...]) -> tuple[tuple[float, float], ...]:
    """See median_distribution; `values` sorted.

    Odd n = 2m+1: the median is the (m+1)-th order statistic, P(med <= u_k) = P(Bin(n, F_k) >= m+1).
    Even n = 2m: the mean of the m-th and (m+1)-th order statistics, whose joint law is multinomial.
    """
    n = len(values)
    if n == 0:
        return ()
    counts: dict[float, int] = {}
    for v in values:
        counts[float(v)] = counts.get(float(v), 0) + 1
    u = sorted(counts)
    p = [counts[x] / n for x in u]
    cum = []
    acc = 0.0
    for q in p:
        acc += q
        cum.append(min(acc, 1.0))
    cum[-1] = 1.0
    d = len(u)
    out: dict[float, float] = {}
    if n % 2 == 1:
        m = n // 2

        def at_least(f: float) -> float:
            return math.fsum(math.comb(n, j) * f**j * (1 - f) ** (n - j) for j in range(m + 1, n + 1))

        prev = 0.0
        for k in range(d):
            c = at_least(cum[k]) if k < d - 1 else 1.0
            if c - prev > 0:
                out[u[k]] = out.get(u[k], 0.0) + (c - prev)
            prev = c
    else:
        m = n // 2
        below = [0.0] + cum[:-1]  # F_{i-1}
        for i in range(d):
            # Both middle order statistics equal u_i: at most m-1 draws below it and at most m-1 above.
            lo, pi, hi = below[i], p[i], 1.0 - cum[i]
            same = 0.0
            for a in range(m):
                for c in range(m):
                    b = n - a - c
                    coef = math.factorial(n) // (math.factorial(a) * math.factorial(b) * math.factorial(c))
                    same += coef * lo**a * pi**b * hi**c
            if same > 0:
                out[u[i]] = out.get(u[i], 0.0) + same
            # X_(m) = u_i < X_(m+1) = u_j: exactly m draws <= u_i (one = u_i), the other m >= u_j (one = u_j).
            low_part = cum[i] ** m - below[i] ** m
            if low_part <= 0:
                continue
            for j in range(i + 1, d):
                high_part = (1.0 - below[j]) ** m - (1.0 - cum[j]) ** m
                prob = math.comb(n, m) * low_part * high_part
                if prob > 0:
                    key = (u[i] + u[j]) / 2.0
                    out[key] = out.get(key, 0.0) + prob
    total = math.fsum(out.values())
    return tuple(sorted((k, v / total) for k, v in out.items()))


def _quantile(weighted: list[tuple[float, float]], q: float) -> float:
    """Smallest x whose cumulative probability reaches q (weighted must be sorted by x)."""
    acc = 0.0
    for x, w in weighted:
        acc += w
        if acc >= q - 1e-12:
            return x
    return weighted[-1][0]


@dataclass(frozen=True)
class Interval:
    """Percentile-bootstrap interval of (other - baseline) and of (other/baseline - 1)."""

    diff_low: float
    diff_high: float
    rel_low: float | None
    rel_high: float | None
    method: Literal["exact", "monte_carlo"]


def bootstrap_interval(
    baseline: Sequence[float], other: Sequence[float], *, confidence: float = CONFIDENCE,
    resamples: int = RESAMPLES, seed: int = SEED,
) -> Interval | None:
    """The bootstrap interval of the change of medians; None when a side has fewer than two values."""
    if len(baseline) < 2 or len(other) < 2:
        return None
    alpha = (1.0 - confidence) / 2.0
    if len(baseline) <= EXACT_MAX_N and len(other) <= EXACT_MAX_N:
        db = _median_distribution(tuple(sorted(float(v) for v in baseline)))
        do = _median_distribution(tuple(sorted(float(v) for v in other)))
        if len(db) * len(do) <= EXACT_LIMIT:
            diffs = sorted(((o - b), pb * po) for b, pb in db for o, po in do)
            rel_defined = all(b > 0 for b, _ in db)
            rel = sorted(((o / b - 1.0), pb * po) for b, pb in db for o, po in do) if rel_defined else []
            return Interval(
                _quantile(diffs, alpha), _quantile(diffs, 1.0 - alpha),
                _quantile(rel, alpha) if rel else None, _quantile(rel, 1.0 - alpha) if rel else None,
                "exact",
            )
        # Too many support points to enumerate: draw the medians from their exact distributions.
        rng = random.Random(seed)
        mb = rng.choices([x for x, _ in db], weights=[w for _, w in db], k=resamples)
        mo = rng.choices([x for x, _ in do], weights=[w for _, w in do], k=resamples)
    else:
        mb, mo = monte_carlo_medians(baseline, other, resamples=resamples, seed=seed)
    return _interval_from_draws(mb, mo, alpha)


def monte_carlo_medians(
    baseline: Sequence[float], other: Sequence[float], *, resamples: int = RESAMPLES, seed: int = SEED
) -> tuple[list[float], list[float]]:
    """The textbook bootstrap: B resamples of each side, their medians. Also the reference in tests."""
    rng = random.Random(seed)
    nb, no = len(baseline), len(other)
    mb = [median(rng.choices(baseline, k=nb)) or 0.0 for _ in range(resamples)]
    mo = [median(rng.choices(other, k=no)) or 0.0 for _ in range(resamples)]
    return mb, mo


def _interval_from_draws(mb: list[float], mo: list[float], alpha: float) -> Interval:
    diffs = sorted(o - b for b, o in zip(mb, mo, strict=True))
    k = len(diffs)

    def q(xs: list[float], frac: float) -> float:
        return xs[min(k - 1, max(0, math.ceil(frac * k) - 1))]

    rel: list[float] = []
    if all(b > 0 for b in mb):
        rel = sorted(o / b - 1.0 for b, o in zip(mb, mo, strict=True))
    return Interval(q(diffs, alpha), q(diffs, 1 - alpha), q(rel, alpha) if rel else None,
                    q(rel, 1 - alpha) if rel else None, "monte_carlo")


def verdict(interval: Interval | None, direction: Direction, *, n_baseline: int, n_other: int) -> Verdict:
    if n_baseline == 0 or n_other == 0:
        return "no_data"
    if n_baseline < 2 or n_other < 2 or interval is None:
        return "single_run"
    if interval.diff_low > 0:
        moved = "increased"
    elif interval.diff_high < 0:
        moved = "decreased"
    else:
        return "within_noise"
    if direction == "neutral":
        return moved  # type: ignore[return-value]
    good = (moved == "increased") == (direction == "higher_is_better")
    return "better" if good else "worse"


def noise_floor(values: Sequence[float]) -> float | None:
    """A/A: the largest |relative change| in the 95% interval of the runs against themselves."""
    if len(values) < 2:
        return None
    iv = bootstrap_interval(values, values)
    if iv is None or iv.rel_low is None or iv.rel_high is None:
        return None
    return max(abs(iv.rel_low), abs(iv.rel_high))


@dataclass(frozen=True)
class Comparison:
    """One metric, one experiment against the baseline."""

    baseline: Describe
    other: Describe
    delta_abs: float | None
    delta_rel: float | None
    interval: Interval | None
    verdict: Verdict


def compare(baseline: Sequence[float], other: Sequence[float], direction: Direction) -> Comparison:
    b, o = describe(baseline), describe(other)
    iv = bootstrap_interval(baseline, other)
    delta_abs = None if b.median is None or o.median is None else o.median - b.median
    return Comparison(b, o, delta_abs, relative_change(b.median, o.median), iv,
                      verdict(iv, direction, n_baseline=b.n, n_other=o.n))


def is_significant(v: Verdict) -> bool:
    return v in ("better", "worse", "increased", "decreased")
