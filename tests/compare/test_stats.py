"""The statistics behind every verdict, checked against distributions whose answer is known."""

from __future__ import annotations

import itertools
import random

import pytest
from perflab import stats


def _brute_median_distribution(values: list[float]) -> dict[float, float]:
    n = len(values)
    out: dict[float, float] = {}
    for idx in itertools.product(range(n), repeat=n):
        m = stats.median([values[i] for i in idx])
        assert m is not None
        out[m] = out.get(m, 0.0) + 1 / n**n
    return out


@pytest.mark.parametrize(
    "values",
    [[1, 2, 3], [5, 5, 7], [1, 2, 3, 4], [1, 1, 2, 9], [3, 1, 4, 1, 5], [2, 7, 1, 8, 2, 8], [4, 4, 4, 4]],
)
def test_exact_median_distribution_equals_enumerating_every_resample(values: list[float]) -> None:
    exact = dict(stats.median_distribution(values))
    brute = _brute_median_distribution(values)
    assert exact.keys() == brute.keys()
    for k, p in exact.items():
        assert p == pytest.approx(brute[k], abs=1e-12)


def test_identical_samples_are_within_noise() -> None:
    runs = [12500.0, 11900.0, 13100.0]
    c = stats.compare(runs, list(runs), "higher_is_better")
    assert c.verdict == "within_noise"
    assert c.delta_rel == 0.0
    assert c.interval is not None and c.interval.rel_low is not None and c.interval.rel_high is not None
    assert c.interval.rel_low < 0 < c.interval.rel_high


def test_clearly_separated_normal_samples_are_better_or_worse_by_direction() -> None:
    rng = random.Random(7)
    slow = [rng.gauss(100, 3) for _ in range(5)]
    fast = [rng.gauss(150, 3) for _ in range(5)]
    assert stats.compare(slow, fast, "higher_is_better").verdict == "better"
    assert stats.compare(slow, fast, "lower_is_better").verdict == "worse"
    assert stats.compare(fast, slow, "higher_is_better").verdict == "worse"
    assert stats.compare(slow, fast, "neutral").verdict == "increased"
    assert stats.compare(fast, slow, "neutral").verdict == "decreased"


def test_the_noisy_plus_eight_percent_is_within_noise() -> None:
    # DESIGN.md: "I ran it three times and got 15k, 21k and 16k" - against 15k, 16k, 17k that is noise.
    c = stats.compare([15000, 16000, 17000], [15000, 21000, 16000], "higher_is_better")
    assert c.delta_rel == pytest.approx(0.0)  # medians 16k and 16k
    assert c.verdict == "within_noise"


def test_three_runs_each_are_significant_only_when_the_ranges_do_not_overlap() -> None:
    direct = [11976.15, 12789.39, 12889.53]
    default = [5627.0, 7004.94, 6713.8]
    buffers_4x128k = [11488.44, 12454.74, 13125.0]
    c = stats.compare(direct, default, "higher_is_better")
    assert c.verdict == "worse"
    assert round(c.delta_rel * 100, 1) == -47.5  # type: ignore[operator]
    assert c.interval is not None and c.interval.rel_high is not None
    # With 3 runs the 95% interval runs from the worst to the best pairing of the two ranges.
    assert c.interval.rel_low == pytest.approx(5627.0 / 12889.53 - 1)
    assert c.interval.rel_high == pytest.approx(7004.94 / 11976.15 - 1)
    assert stats.compare(direct, buffers_4x128k, "higher_is_better").verdict == "within_noise"


def test_a_single_run_says_it_has_no_noise_estimate() -> None:
    c = stats.compare([100.0], [200.0, 210.0], "higher_is_better")
    assert c.verdict == "single_run" and c.interval is None
    assert c.delta_rel == pytest.approx(1.05)
    assert stats.noise_floor([100.0]) is None


def test_zero_baseline_gives_a_verdict_without_a_relative_change() -> None:
    c = stats.compare([0, 0, 0], [120, 80, 95], "lower_is_better")
    assert c.delta_rel is None and c.verdict == "worse"
    c = stats.compare([0, 0, 0], [0, 0, 0], "lower_is_better")
    assert c.delta_rel == 0.0 and c.verdict == "within_noise"


def test_exact_interval_matches_the_textbook_monte_carlo_bootstrap() -> None:
    rng = random.Random(11)
    a = [rng.gauss(100, 10) for _ in range(7)]
    b = [rng.gauss(108, 10) for _ in range(6)]
    exact = stats.bootstrap_interval(a, b)
    assert exact is not None and exact.method == "exact"
    mb, mo = stats.monte_carlo_medians(a, b, resamples=20000, seed=3)
    diffs = sorted(o - x for x, o in zip(mb, mo, strict=True))
    assert exact.diff_low == pytest.approx(diffs[int(0.025 * len(diffs))], abs=1.0)
    assert exact.diff_high == pytest.approx(diffs[int(0.975 * len(diffs))], abs=1.0)


def test_large_groups_use_seeded_monte_carlo_and_are_reproducible() -> None:
    rng = random.Random(5)
    a = [rng.gauss(100, 5) for _ in range(60)]
    b = [rng.gauss(104, 5) for _ in range(60)]
    first = stats.bootstrap_interval(a, b)
    assert first is not None and first.method == "monte_carlo"
    assert stats.bootstrap_interval(a, b) == first
    assert stats.METHOD["resamples"] == 2000 and stats.METHOD["confidence"] == 0.95


def test_interval_covers_the_true_change_about_95_percent_of_the_time() -> None:
    # Normal runs, true medians 100 and 110: the interval should contain +10% in most repetitions.
    rng = random.Random(2026)
    trials, covered, detected = 300, 0, 0
    for _ in range(trials):
        a = [rng.gauss(100, 8) for _ in range(15)]
        b = [rng.gauss(110, 8) for _ in range(15)]
        iv = stats.bootstrap_interval(a, b)
        assert iv is not None and iv.rel_low is not None and iv.rel_high is not None
        covered += iv.rel_low <= 0.10 <= iv.rel_high
        detected += stats.verdict(iv, "higher_is_better", n_baseline=15, n_other=15) == "better"
    assert 0.88 <= covered / trials <= 0.995
    assert detected / trials > 0.7  # power of medians of 15 runs at d = 1.25 sd


def test_a_a_noise_floor_grows_with_run_to_run_spread() -> None:
    tight = stats.noise_floor([1000, 1010, 990, 1005, 995])
    loose = stats.noise_floor([1000, 1300, 700, 1150, 850])
    assert tight is not None and loose is not None
    assert tight < 0.03
    assert loose > 0.2
    # A/A of repeated runs is within noise by construction.
    assert stats.compare([1000, 1300, 700], [1000, 1300, 700], "neutral").verdict == "within_noise"
