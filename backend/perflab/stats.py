"""Statistics for comparing repeated runs: medians, an interval on the change, a calibrated verdict.

Method (stated in every comparison, see METHOD):
- **Welch's t-test on log values**, two-sided at ALPHA = 0.05: an A/A pair (both sides drawn from one
  distribution) is called better/worse at most 5% of the time. Ratio metrics are positive and their
  noise multiplicative, so the test compares mean log values (the change is a ratio); when a value is
  <= 0 (error counts, idle CPU) the same test runs on the raw values. The 95% interval of the change
  comes from the same t distribution (Welch-Satterthwaite degrees of freedom).
- **Equivalence (TOST)**: not better/worse, and the 90% interval lies inside +-the smallest
  meaningful change of the metric's family (MARGINS, editable per project): "equivalent".
- Otherwise **not decided**, with why, the smallest change these run counts detect here (80% power
  from the observed noise) and about how many more runs a side would decide a change of the observed
  size. A side with a single run has no noise estimate and is never decided.

tests/compare/test_calibration.py measures the false-positive rate and the detection rate by
simulation at 2-20 runs a side under normal, log-normal, heavy-tailed and two-mode noise.

Pure: standard library only, no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from perflab.tdist import t_ppf, t_sf

Direction = Literal["higher_is_better", "lower_is_better", "neutral"]
Verdict = Literal["better", "worse", "equivalent", "not_decided", "increased", "decreased", "no_data", "invalid"]
Family = Literal["throughput", "latency", "errors", "telemetry", "syscalls"]

ALPHA = 0.05
CONFIDENCE = 1.0 - ALPHA
POWER = 0.80
# Beyond this many runs a side, "how many more runs would decide" is not worth estimating.
MAX_PLANNED_RUNS = 1000

# The smallest meaningful change per metric family (a fraction): a change provably inside +-this is
# "equivalent". Throughput is what a tuning change is judged by and is steadier than latency tails.
MARGINS: dict[str, float] = {
    "throughput": 0.03,
    "latency": 0.05,
    "errors": 0.05,
    "telemetry": 0.05,
    "syscalls": 0.05,
}

METHOD = {
    "name": "Welch's t-test on log values, with a TOST equivalence test",
    "confidence": CONFIDENCE,
    "alpha": ALPHA,
    "power": POWER,
    "detail": (
        "Each side's runs are compared by Welch's t-test on log values (raw values where one is <= 0), two-sided "
        "at alpha 0.05: better/worse only when the 95% interval of the change excludes no change, so an A/A pair is "
        "called better or worse at most 5% of the time. Equivalent when the 90% interval lies inside the smallest "
        "meaningful change of the metric (two one-sided tests). Otherwise not decided: the cell says the smallest "
        "change these run counts detect here (80% power, from the observed noise) and about how many more runs a "
        "side would decide a change of the observed size. One run on a side gives no noise estimate."
    ),
}


def family(key: str) -> Family:
    """The metric family whose smallest meaningful change applies to this key."""
    if key.startswith("strace."):
        return "syscalls"
    if key in ("wrk.requests_per_sec", "wrk.transfer_per_sec_bytes", "wrk.requests"):
        return "throughput"
    if key.startswith("wrk.latency"):
        return "latency"
    if key in ("wrk.non_2xx_3xx", "wrk.socket_errors"):
        return "errors"
    return "telemetry"


def margin_for(key: str, margins: Mapping[str, float] | None = None) -> float:
    fam = family(key)
    if margins and fam in margins:
        return margins[fam]
    return MARGINS[fam]


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


# -- the test ----------------------------------------------------------------------------------------


def _mean_var(xs: Sequence[float]) -> tuple[float, float]:
    n = len(xs)
    m = math.fsum(xs) / n
    return m, math.fsum((x - m) ** 2 for x in xs) / (n - 1)


@dataclass(frozen=True)
class Welch:
    """Welch's t on one scale: `log` (estimate = mean log ratio) or `raw` (estimate = difference of means)."""

    scale: Literal["log", "raw"]
    estimate: float
    se: float
    df: float
    # Pooled run-to-run standard deviation on this scale (what planning figures use).
    sd: float
    # Mean of the baseline on the raw scale (turns a raw difference into a relative one).
    base_mean: float
    n_baseline: int
    n_other: int

    def p_two_sided(self) -> float:
        if self.se == 0:
            return 1.0 if self.estimate == 0 else 0.0
        return min(1.0, 2.0 * t_sf(abs(self.estimate) / self.se, self.df))

    def to_rel(self, x: float) -> float | None:
        """A change on this scale as a relative change (None when the baseline mean is 0)."""
        if self.scale == "log":
            return math.expm1(x)
        return x / abs(self.base_mean) if self.base_mean else None

    def from_rel(self, r: float) -> float | None:
        if self.scale == "log":
            return math.log1p(r)
        return r * abs(self.base_mean) if self.base_mean else None


def welch(baseline: Sequence[float], other: Sequence[float]) -> Welch | None:
    """The test on log values when every value is positive, else on raw values; None below 2 runs a side."""
    nb, no = len(baseline), len(other)
    if nb < 2 or no < 2:
        return None
    positive = all(v > 0 for v in baseline) and all(v > 0 for v in other)
    xb = [math.log(v) for v in baseline] if positive else [float(v) for v in baseline]
    xo = [math.log(v) for v in other] if positive else [float(v) for v in other]
    mb, vb = _mean_var(xb)
    mo, vo = _mean_var(xo)
    qb, qo = vb / nb, vo / no
    se = math.sqrt(qb + qo)
    if se > 0:
        df = (qb + qo) ** 2 / ((qb * qb / (nb - 1) if qb else 0.0) + (qo * qo / (no - 1) if qo else 0.0))
    else:
        df = float(nb + no - 2)
    sd = math.sqrt(((nb - 1) * vb + (no - 1) * vo) / (nb + no - 2))
    return Welch("log" if positive else "raw", mo - mb, se, df, sd, math.fsum(baseline) / nb, nb, no)


@dataclass(frozen=True)
class Interval:
    """The 95% interval of the change: absolute (other - baseline, at the baseline's median) and relative."""

    diff_low: float
    diff_high: float
    rel_low: float | None
    rel_high: float | None


def interval(w: Welch, base_median: float | None, confidence: float = CONFIDENCE) -> Interval:
    q = t_ppf(1.0 - (1.0 - confidence) / 2.0, w.df) if w.se > 0 else 0.0
    lo, hi = w.estimate - q * w.se, w.estimate + q * w.se
    rlo, rhi = w.to_rel(lo), w.to_rel(hi)
    if w.scale == "raw":
        return Interval(lo, hi, rlo, rhi)
    ref = base_median if base_median is not None else 0.0
    assert rlo is not None and rhi is not None
    return Interval(ref * rlo, ref * rhi, rlo, rhi)


def detectable(sd: float, n_baseline: int, n_other: int, alpha: float = ALPHA, power: float = POWER) -> float:
    """On the test's scale: the change that n_baseline vs n_other runs detect with this power, given noise sd."""
    df = max(1.0, n_baseline + n_other - 2.0)
    return (t_ppf(1.0 - alpha / 2.0, df) + t_ppf(power, df)) * sd * math.sqrt(1.0 / n_baseline + 1.0 / n_other)


def runs_to_decide(sd: float, change: float, alpha: float = ALPHA, power: float = POWER) -> int | None:
    """Runs a side (equal sides) that detect `change` (on the test's scale) with this power; None past the cap."""
    if change == 0 or sd <= 0:
        return None if change == 0 else 2
    if detectable(sd, MAX_PLANNED_RUNS, MAX_PLANNED_RUNS, alpha, power) > abs(change):
        return None
    lo, hi = 1, MAX_PLANNED_RUNS  # detectable() falls as n grows: bisect for the first n that reaches change
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if detectable(sd, mid, mid, alpha, power) <= abs(change):
            hi = mid
        else:
            lo = mid
    return max(2, hi)


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    # Why a verdict is not decided, in plain words (None when decided).
    undecided_reason: str | None
    p_value: float | None


def _moved(estimate: float, direction: Direction) -> Verdict:
    up = estimate > 0
    if direction == "neutral":
        return "increased" if up else "decreased"
    return "better" if up == (direction == "higher_is_better") else "worse"


def decide(baseline: Sequence[float], other: Sequence[float], direction: Direction, *,
           margin: float = MARGINS["throughput"], alpha: float = ALPHA) -> Decision:
    """The verdict of `other` against `baseline` at level alpha, and what would decide it when it is not decided.

    Cheap (no quantiles): simulations call it tens of thousands of times; plan() says what would decide.
    """
    nb, no = len(baseline), len(other)
    if nb == 0 or no == 0:
        return Decision("no_data", None, None)
    w = welch(baseline, other)
    if w is None:
        return Decision("not_decided", "one run on a side gives no noise estimate; 2 or more runs a side can decide",
                        None)
    p = w.p_two_sided()
    if p < alpha:
        return Decision(_moved(w.estimate, direction), None, p)
    # Equivalence: two one-sided tests against +-margin, each at alpha.
    if w.se == 0:  # p >= alpha with no noise at all: both sides hold one same value
        return Decision("equivalent", None, p)
    m = w.from_rel(margin)
    if m is not None and max(t_sf((w.estimate + m) / w.se, w.df), t_sf((m - w.estimate) / w.se, w.df)) < alpha:
        return Decision("equivalent", None, p)
    reason = "the change is within what these runs can tell from noise"
    if m is not None and w.se > 0 and abs(w.estimate) < m:
        reason += ", and too few to show it is smaller than the smallest meaningful change"
    return Decision("not_decided", reason, p)


def plan(w: Welch, alpha: float = ALPHA) -> tuple[float | None, int | None]:
    """(the smallest change these run counts detect here, about how many more runs a side would decide the
    observed change): what a not-decided cell says would decide it."""
    det = w.to_rel(detectable(w.sd, w.n_baseline, w.n_other, alpha))
    need = runs_to_decide(w.sd, w.estimate, alpha)
    return det, None if need is None else max(1, need - min(w.n_baseline, w.n_other))


# -- one metric, one experiment against the baseline -------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    baseline: Describe
    other: Describe
    delta_abs: float | None
    delta_rel: float | None
    interval: Interval | None
    verdict: Verdict
    undecided_reason: str | None
    detectable: float | None
    runs_needed: int | None


def compare(baseline: Sequence[float], other: Sequence[float], direction: Direction, *,
            margin: float = MARGINS["throughput"], alpha: float = ALPHA) -> Comparison:
    b, o = describe(baseline), describe(other)
    d = decide(baseline, other, direction, margin=margin, alpha=alpha)
    w = welch(baseline, other)
    iv = interval(w, b.median, 1.0 - alpha) if w is not None else None
    det, more = plan(w, alpha) if w is not None else (None, None)
    if d.verdict != "not_decided":
        more = None  # decided cells still say what these run counts can see, not what would decide them
    delta_abs = None if b.median is None or o.median is None else o.median - b.median
    return Comparison(b, o, delta_abs, relative_change(b.median, o.median), iv, d.verdict, d.undecided_reason,
                      det, more)


def noise_floor(values: Sequence[float], n: int | None = None) -> float | None:
    """A/A: the smallest change (a fraction) that n vs n runs of this noise detect (n = len(values) by default)."""
    if len(values) < 2:
        return None
    w = welch(values, values)
    if w is None:
        return None
    k = n or len(values)
    return w.to_rel(detectable(w.sd, k, k))


# -- repeat until decided ------------------------------------------------------------------------------

MAX_LOOKS = 100


def look_alpha(look: int, looks: int, alpha: float = ALPHA) -> float:
    """The level of one look of a sequential design that looks `looks` times (after each run of
    `perflab-agent run --repeat auto`): alpha spent evenly across the planned looks. The chance that any
    look calls an A/A pair better/worse is at most the sum of the looks' levels (Bonferroni), so the
    whole design keeps the stated false-positive rate however the looks are correlated."""
    if not 1 <= look <= looks <= MAX_LOOKS:
        raise ValueError(f"look must be in 1..looks and looks at most {MAX_LOOKS}")
    return alpha / looks


def is_significant(v: Verdict) -> bool:
    return v in ("better", "worse", "increased", "decreased")


# -- the shape of one side's runs ----------------------------------------------------------------------

# A run is an outlier when it sits this many scaled MADs from the median of its siblings...
OUTLIER_Z = 3.5
# ...and at least this far from it (relative): identical runs plus one 0.5% off are not worth a flag.
OUTLIER_MIN_REL = 0.02


def outliers(values: Sequence[float]) -> list[int]:
    """Indexes of runs far from their siblings (modified z-score of the median absolute deviation); needs 3 runs."""
    if len(values) < 3:
        return []
    out = []
    for i, v in enumerate(values):
        rest = [x for j, x in enumerate(values) if j != i]
        med = median(rest)
        assert med is not None
        mad = median([abs(x - med) for x in rest]) or 0.0
        far = abs(v - med)
        if far <= OUTLIER_MIN_REL * abs(med) or far == 0:
            continue
        if mad == 0 or far / (1.4826 * mad) > OUTLIER_Z:
            out.append(i)
    # Half the runs cannot all be outliers: that is a spread, not a stray run.
    return out if len(out) * 2 < len(values) else []


def two_mode(values: Sequence[float]) -> bool:
    """The runs fall in two groups (at least 2 runs each) separated by more than 3 times either group's range
    and by 2% or more: a bimodal setup (CPU placement, cache state) that a mean or median hides."""
    s = sorted(values)
    if len(s) < 4:
        return False
    gap, at = max((s[i + 1] - s[i], i + 1) for i in range(len(s) - 1))
    low, high = s[:at], s[at:]
    if len(low) < 2 or len(high) < 2:
        return False
    spread = max(low[-1] - low[0], high[-1] - high[0])
    return gap > 3 * spread and gap >= OUTLIER_MIN_REL * abs(s[len(s) // 2])
