"""The statistics behind every verdict, checked on cases whose answer is known."""

from __future__ import annotations

import math
import random

import pytest
from perflab import stats

# Requests/sec of the real capture (tests/fixtures/captures/nginx-proxy-buffers), 3 runs each.
DIRECT = [11976.15, 12789.39, 12889.53]
DEFAULT = [5627.0, 7004.94, 6713.8]
BUFFERS_4X128K = [11488.44, 12454.74, 13125.0]


def test_the_capture_default_is_worse_and_buffers_4x128k_is_not() -> None:
    c = stats.compare(DIRECT, DEFAULT, "higher_is_better")
    assert c.verdict == "worse"
    assert round(c.delta_rel * 100, 1) == -47.5  # type: ignore[operator]
    # The 95% interval of the ratio excludes no change by far, and contains the observed change.
    assert c.interval is not None and c.interval.rel_low is not None and c.interval.rel_high is not None
    assert c.interval.rel_low < -0.47 < c.interval.rel_high < -0.3
    assert c.undecided_reason is None and c.runs_needed is None
    back = stats.compare(DIRECT, BUFFERS_4X128K, "higher_is_better")
    assert back.verdict == "not_decided"
    assert back.undecided_reason and "noise" in back.undecided_reason
    # 3 vs 3 runs of this noise detect changes of about 10%; the -0.5% seen would take hundreds of runs.
    assert back.detectable is not None and 0.05 < back.detectable < 0.2
    assert back.runs_needed is None or back.runs_needed > 50


def test_welch_on_logs_matches_a_hand_computed_t_statistic() -> None:
    a, b = [100.0, 110.0, 105.0], [120.0, 126.0, 131.0]
    w = stats.welch(a, b)
    assert w is not None and w.scale == "log"
    la, lb = [math.log(x) for x in a], [math.log(x) for x in b]
    ma, mb = sum(la) / 3, sum(lb) / 3
    va = sum((x - ma) ** 2 for x in la) / 2
    vb = sum((x - mb) ** 2 for x in lb) / 2
    se = math.sqrt(va / 3 + vb / 3)
    assert w.estimate == pytest.approx(mb - ma) and w.se == pytest.approx(se)
    assert w.df == pytest.approx((va / 3 + vb / 3) ** 2 / ((va / 3) ** 2 / 2 + (vb / 3) ** 2 / 2))
    # A value <= 0 switches the test to raw values (an error count of 0 has no log).
    assert (w2 := stats.welch([0.0, 1.0, 2.0], [5.0, 6.0, 7.0])) is not None and w2.scale == "raw"
    assert w2.estimate == pytest.approx(5.0)


def test_clearly_separated_samples_are_better_or_worse_by_direction() -> None:
    slow, fast = [100.0, 103.0, 98.0, 101.0, 99.0], [150.0, 148.0, 153.0, 151.0, 149.0]
    assert stats.compare(slow, fast, "higher_is_better").verdict == "better"
    assert stats.compare(slow, fast, "lower_is_better").verdict == "worse"
    assert stats.compare(fast, slow, "higher_is_better").verdict == "worse"
    assert stats.compare(slow, fast, "neutral").verdict == "increased"
    assert stats.compare(fast, slow, "neutral").verdict == "decreased"


def test_the_noisy_plus_eight_percent_is_not_decided_and_says_what_would_decide() -> None:
    # DESIGN.md: "I ran it three times and got 15k, 21k and 16k" - against 15k, 16k, 17k that decides nothing.
    c = stats.compare([15000, 16000, 17000], [15000, 21000, 16000], "higher_is_better")
    assert c.verdict == "not_decided"
    assert c.detectable is not None and c.detectable > 0.2
    assert c.runs_needed is not None and c.runs_needed >= 3


def test_a_tight_small_change_is_equivalent_within_the_margin() -> None:
    a = [10000.0, 10010.0, 9995.0, 10005.0, 9990.0]
    b = [10020.0, 10030.0, 10015.0, 10025.0, 10010.0]  # +0.2%, noise ~0.1%
    c = stats.compare(a, b, "higher_is_better", margin=0.03)
    assert c.verdict in ("better", "equivalent")
    assert stats.compare(a, list(a), "higher_is_better", margin=0.03).verdict == "equivalent"
    # The same data with a margin below the noise cannot be shown equivalent.
    wide = [10000.0, 10500.0, 9500.0]
    assert stats.compare(wide, list(wide), "higher_is_better", margin=0.01).verdict == "not_decided"


def test_a_single_run_is_not_decided_and_says_why() -> None:
    c = stats.compare([100.0], [200.0, 210.0], "higher_is_better")
    assert c.verdict == "not_decided" and c.interval is None
    assert c.undecided_reason is not None and "one run" in c.undecided_reason
    assert c.delta_rel == pytest.approx(1.05)
    assert stats.noise_floor([100.0]) is None
    assert stats.compare([], [1.0, 2.0], "neutral").verdict == "no_data"


def test_zero_baseline_gives_a_verdict_without_a_relative_change() -> None:
    c = stats.compare([0, 0, 0], [120, 80, 95], "lower_is_better")
    assert c.delta_rel is None and c.verdict == "worse"
    c = stats.compare([0, 0, 0], [0, 0, 0], "lower_is_better")
    assert c.delta_rel == 0.0 and c.verdict == "equivalent"


def test_runs_needed_shrinks_the_detectable_change_to_the_observed_one() -> None:
    rng = random.Random()
    a = [1000 * math.exp(rng.gauss(0, 0.05)) for _ in range(3)]
    b = [1030 * math.exp(rng.gauss(0, 0.05)) for _ in range(3)]
    w = stats.welch(a, b)
    assert w is not None
    n = stats.runs_to_decide(w.sd, w.estimate)
    if n is not None:
        assert stats.detectable(w.sd, n, n) <= abs(w.estimate) < stats.detectable(w.sd, n - 1, n - 1) or n == 2


def test_noise_floor_grows_with_run_to_run_spread() -> None:
    tight = stats.noise_floor([1000, 1010, 990, 1005, 995])
    loose = stats.noise_floor([1000, 1300, 700, 1150, 850])
    assert tight is not None and loose is not None
    assert tight < 0.03
    assert loose > 0.2


def test_a_run_far_from_its_siblings_is_an_outlier_and_two_groups_are_two_modes() -> None:
    assert stats.outliers([12000.0, 12100.0, 6000.0]) == [2]
    assert stats.outliers([12000.0, 12100.0, 12050.0, 11980.0]) == []
    assert stats.outliers([100.0, 120.0, 140.0]) == []
    assert stats.two_mode([1000.0, 1005.0, 1100.0, 1104.0, 998.0, 1102.0])
    assert not stats.two_mode([1000.0, 1030.0, 1060.0, 1090.0])
    assert not stats.two_mode([1000.0, 1001.0, 1100.0])
