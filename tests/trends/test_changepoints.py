"""The change-point method on its own: where it finds steps, what a short history can say."""

from __future__ import annotations

import random

import pytest
from perflab.trends.changepoints import ALPHA, critical, detect, detectable_step_pct, p_value


def _noisy(levels: list[float], rng: random.Random, cv: float = 0.05) -> list[float]:
    """Per-experiment values with run-to-run noise (``cv`` relative standard deviation)."""
    return [level * (1 + rng.gauss(0, cv)) for level in levels]


def test_rps_stepping_from_10k_to_7k_after_the_sixth_is_one_change_point_at_the_seventh() -> None:
    for seed in range(25):
        values = _noisy([10_000.0] * 6 + [7_000.0] * 6, random.Random(seed))
        found = detect(values, alpha=0.01)
        assert [c.index for c in found] == [6], (seed, values, found)
        assert -36 < (found[0].delta_pct or 0) < -24
        assert found[0].p_value <= 0.01 < ALPHA


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
    assert detectable_step_pct([[5.0]] * 5) is None  # too short: no size can be judged


def test_every_run_counts_three_runs_an_experiment_see_a_smaller_step_than_one() -> None:
    """Six experiments, -8% after the third, 4% run-to-run noise: the mean of three runs per experiment
    finds it where one run per experiment mostly cannot, and the detectable step says so beforehand."""
    rng = random.Random(4)
    three_found = one_found = 0
    for _ in range(200):
        levels = [100.0] * 3 + [92.0] * 3
        three = [[lv * (1 + rng.gauss(0, 0.04)) for _ in range(3)] for lv in levels]
        three_found += [c.index for c in detect(three)] == [3]
        one_found += [c.index for c in detect([g[0] for g in three])] == [3]
    assert three_found > 1.5 * one_found and three_found > 100, (three_found, one_found)
    flat3 = [[100 * (1 + rng.gauss(0, 0.04)) for _ in range(3)] for _ in range(40)]
    flat1 = [[g[0]] for g in flat3]
    assert detectable_step_pct(flat3) < detectable_step_pct(flat1)  # type: ignore[operator]


def test_a_stricter_false_alarm_rate_needs_a_larger_statistic() -> None:
    for n in (6, 10, 37, 300, 800):
        assert critical(n, 0.01) > critical(n, 0.05) > critical(n, 0.2) > 0
        assert p_value(n, critical(n, 0.05)) == pytest.approx(0.05, rel=0.02)
    assert critical(30, 0.05) < critical(500, 0.05)  # more splits, more chances: a higher bar


def test_values_of_zero_fall_back_to_the_raw_scale() -> None:
    values = [[0.0, 1.0]] * 5 + [[20.0, 21.0]] * 5  # errors per run: zero is a value
    assert [c.index for c in detect(values)] == [5]
    with pytest.raises(ValueError):
        detect([[1.0], []])
