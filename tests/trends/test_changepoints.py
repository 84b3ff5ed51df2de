"""The change-point method on its own: where it finds steps, and how often it cries wolf on noise."""

from __future__ import annotations

import random

from perflab.trends.changepoints import ALPHA, detect


def _noisy(levels: list[float], rng: random.Random, cv: float = 0.05) -> list[float]:
    """Per-experiment medians with run-to-run noise (``cv`` relative standard deviation)."""
    return [level * (1 + rng.gauss(0, cv)) for level in levels]


def test_rps_stepping_from_10k_to_7k_after_the_sixth_is_one_change_point_at_the_seventh() -> None:
    for seed in range(25):
        values = _noisy([10_000.0] * 6 + [7_000.0] * 6, random.Random(seed))
        found = detect(values)
        assert [c.index for c in found] == [6], (seed, values, found)
        assert -36 < (found[0].delta_pct or 0) < -24
        assert found[0].p_value < ALPHA


def test_a_metric_that_did_not_move_rarely_shows_a_change_point() -> None:
    """100 flat 12-experiment histories: about alpha x 100 = 1 false alarm is expected; 5 or more would
    happen with probability 0.003 if the method kept its promise."""
    alarms = [seed for seed in range(100) if detect(_noisy([180.0] * 12, random.Random(seed)))]
    assert len(alarms) <= 4, alarms


def test_false_alarm_rate_on_pure_noise_is_alpha() -> None:
    """200 histories of 8 to 40 experiments with no change (Gaussian and heavy-tailed noise): the share
    showing any change point stays within binomial bounds of alpha, at two levels (so the rate is
    what is documented, not merely small)."""
    rng = random.Random(7)
    histories = []
    for i in range(200):
        n = rng.randint(8, 40)
        if i % 2:
            histories.append([rng.gauss(10_000, 500) for _ in range(n)])
        else:  # lognormal: occasional runs far off, as when a neighbour steals the CPU
            histories.append([10_000 * rng.lognormvariate(0, 0.3) for _ in range(n)])
    # About 3 sigma around 2 and 20 of 200; fewer reorderings at 0.1, where 999 resolve it well.
    for alpha, permutations, low, high in ((0.01, 4999, 0, 7), (0.1, 999, 9, 33)):
        alarms = sum(1 for values in histories if detect(values, alpha=alpha, permutations=permutations))
        assert low <= alarms <= high, (alpha, alarms)


def test_two_steps_are_two_change_points_with_the_level_on_each_side() -> None:
    values = _noisy([10_000.0] * 8 + [7_000.0] * 8 + [9_500.0] * 8, random.Random(3), cv=0.03)
    found = detect(values)
    assert [c.index for c in found] == [8, 16]
    assert abs(found[0].before_median - 10_000) < 400 and abs(found[0].after_median - 7_000) < 300
    assert abs(found[1].after_median - 9_500) < 400


def test_one_wild_run_is_not_a_change() -> None:
    values = _noisy([10_000.0] * 12, random.Random(11))
    values[5] = 2_000.0
    assert detect(values) == []


def test_short_or_constant_histories_have_none() -> None:
    assert detect([]) == [] and detect([1.0, 9.0, 9.0, 1.0, 1.0]) == []
    assert detect([5.0] * 20) == []


def test_same_history_gives_the_same_answer() -> None:
    values = _noisy([100.0] * 7 + [90.0] * 7, random.Random(5), cv=0.04)
    assert detect(values) == detect(values)
