"""Does "better"/"worse" mean what it says at the run counts engineers use? Measured by simulation.

Fresh random draws every run (no fixed seed could hide a failure). A/A pairs (both sides from one
distribution) must be called better/worse at most ALPHA of the time, at every run count and noise shape,
for both metric directions; the bound is the binomial upper quantile, family-wise 99.9% over every cell,
so an honest method fails this test about once in a thousand runs and the old bootstrap (42% at 2 runs,
8-10% at 3) fails it every time. The tables are printed (pytest -s), and written to the file named by
PERFLAB_CALIBRATION_OUT (the README's "How perflab decides" quotes docs/calibration.md, made that way).
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

from perflab import stats

from tests.compare.calibration import RUN_COUNTS, SHAPES, binomial_upper, sampler, table

AA_TRIALS = 1500
POWER_TRIALS = 300
CHANGES = (0.05, 0.10, 0.20, 0.30)
_REPORT: dict[str, str] = {}


def _write_report() -> None:
    out = os.environ.get("PERFLAB_CALIBRATION_OUT")
    text = "\n".join(_REPORT[k] for k in sorted(_REPORT))
    print("\n" + text)
    if out:
        Path(out).write_text("# Calibration tables (tests/compare/test_calibration.py)\n\n" + text)


def test_a_a_false_positive_rate_stays_at_the_stated_level() -> None:
    rng = random.Random()
    cells = len(SHAPES) * len(RUN_COUNTS) * 2
    limit = binomial_upper(AA_TRIALS, stats.ALPHA, 1 - 0.001 / cells)
    started = time.monotonic()
    rows, too_high = [], []
    for shape in SHAPES:
        draw = sampler(shape, rng)
        row = [shape]
        for n in RUN_COUNTS:
            rates = []
            for direction in ("higher_is_better", "lower_is_better"):
                called = sum(
                    stats.decide(draw(1000.0, n), draw(1000.0, n), direction).verdict in ("better", "worse")
                    for _ in range(AA_TRIALS))
                rates.append(called / AA_TRIALS)
                if called > limit:
                    too_high.append(f"{shape}, {n} runs, {direction}: {called}/{AA_TRIALS}")
            row.append(" / ".join(f"{r:.1%}" for r in rates))
        rows.append(row)
    _REPORT["1"] = table(
        f"A/A pairs called better or worse (higher-is-better / lower-is-better; {AA_TRIALS} pairs each; "
        f"stated level {stats.ALPHA:.0%}, fails above {limit / AA_TRIALS:.1%})",
        ["noise (3%)"] + [f"{n} runs a side" for n in RUN_COUNTS], rows)
    _write_report()
    assert not too_high, f"false-positive rate above {stats.ALPHA:.0%}: {too_high}"
    assert time.monotonic() - started < 40


def test_detection_rate_of_real_changes_by_run_count() -> None:
    rng = random.Random()
    rows, rates = [], {}
    for shape in ("log-normal", "two-mode"):
        draw = sampler(shape, rng)
        for change in CHANGES:
            row = [shape, f"-{change:.0%}"]
            for n in RUN_COUNTS:
                hit = sum(stats.decide(draw(1000.0, n), draw(1000.0 * (1 - change), n), "higher_is_better").verdict
                          == "worse" for _ in range(POWER_TRIALS))
                rates[(shape, change, n)] = hit / POWER_TRIALS
                row.append(f"{hit / POWER_TRIALS:.0%}")
            rows.append(row)
    _REPORT["2"] = table(f"Real slowdowns called worse ({POWER_TRIALS} pairs each)",
                         ["noise (3%)", "change"] + [f"{n} runs" for n in RUN_COUNTS], rows)
    _write_report()
    # What an engineer should be able to count on with log-normal 3% noise:
    assert rates[("log-normal", 0.30, 5)] >= 0.8
    assert rates[("log-normal", 0.30, 3)] >= 0.8
    assert rates[("log-normal", 0.10, 5)] >= 0.8
    assert rates[("log-normal", 0.05, 20)] >= 0.8
    # More runs never see less (slack for the draws).
    for shape in ("log-normal", "two-mode"):
        for change in CHANGES:
            assert rates[(shape, change, 20)] + 0.1 >= rates[(shape, change, 2)]


def test_equivalence_is_found_when_there_is_no_change_and_enough_runs() -> None:
    rng = random.Random()
    draw = sampler("log-normal", rng)
    rows = []
    found = {}
    for n in RUN_COUNTS:
        eq = sum(stats.decide(draw(1000.0, n), draw(1000.0, n), "higher_is_better", margin=0.03).verdict == "equivalent"
                 for _ in range(POWER_TRIALS))
        # A real 5% change (beyond the 3% margin) must rarely be called equivalent: TOST's error rate is alpha.
        wrong = sum(stats.decide(draw(1000.0, n), draw(1050.0, n), "higher_is_better", margin=0.03).verdict
                    == "equivalent" for _ in range(POWER_TRIALS))
        found[n] = (eq / POWER_TRIALS, wrong / POWER_TRIALS)
        rows.append([str(n), f"{eq / POWER_TRIALS:.0%}", f"{wrong / POWER_TRIALS:.1%}"])
    _REPORT["3"] = table(f"Equivalence (margin 3%, log-normal 3% noise, {POWER_TRIALS} pairs each)",
                         ["runs a side", "no change: equivalent", "+5% change: called equivalent"], rows)
    _write_report()
    assert found[20][0] >= 0.7
    limit = binomial_upper(POWER_TRIALS, stats.ALPHA, 1 - 0.001 / len(RUN_COUNTS)) / POWER_TRIALS
    assert all(wrong <= limit for _, wrong in found.values())


def test_repeat_until_decided_keeps_the_false_positive_rate_and_says_how_many_runs_it_took() -> None:
    """`perflab-agent run --repeat auto --max N`: a candidate run at a time against a baseline of 3 runs,
    a look after each run from the second, each at stats.look_alpha; stop when decided."""
    rng = random.Random()
    trials, max_runs, looks = 600, 10, 9
    rows, fpr = [], {}
    for shape in ("log-normal", "two-mode"):
        draw = sampler(shape, rng)
        for change in (0.0, -0.05, -0.10, -0.20):
            called, wrong_way, runs_used = 0, 0, 0
            for _ in range(trials):
                base = draw(1000.0, 3)
                cand: list[float] = draw(1000.0 * (1 + change), 1)
                verdict = "not_decided"
                for look in range(1, looks + 1):
                    cand += draw(1000.0 * (1 + change), 1)
                    verdict = stats.decide(base, cand, "higher_is_better",
                                           alpha=stats.look_alpha(look, looks)).verdict
                    if verdict != "not_decided":
                        break
                runs_used += len(cand)
                called += verdict in ("better", "worse")
                wrong_way += verdict == "better"
            if change == 0.0:
                fpr[shape] = called
            rows.append([shape, f"{change:+.0%}", f"{called / trials:.1%}" if change == 0 else f"{called / trials:.0%}",
                         f"{runs_used / trials:.1f}"])
            assert change == 0.0 or wrong_way <= binomial_upper(trials, stats.ALPHA / 2, 0.999)
    _REPORT["4"] = table(f"--repeat auto --max {max_runs} against 3 baseline runs ({trials} sequences each; "
                         "alpha spent evenly across the looks)",
                         ["noise (3%)", "true change", "called better/worse", "average runs"], rows)
    _write_report()
    limit = binomial_upper(trials, stats.ALPHA, 1 - 0.001 / 2)
    assert all(n <= limit for n in fpr.values()), fpr
