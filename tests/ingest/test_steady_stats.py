"""Steady-state statistics of a series held in an array (an import's columns) are those of the same values in a
list, bit for bit and type for type: integer arrays go through counts of their distinct values."""

from __future__ import annotations

import json
import random
from array import array

from perflab.ingest.finish import _counted_stats, steady_stats


def test_statistics_of_integer_arrays_are_those_of_their_lists() -> None:
    rnd = random.Random(4)
    counted = 0
    for _ in range(1500):
        n = rnd.choice([1, 4, 5, 64, 65, 100, 101, 999, 4000])
        spread = rnd.choice([1, 3, 50, 1000, 10**6, 2**52, 2**60])
        base = rnd.choice([0, -spread, 23_000_000, 2**53 - 5])
        values = [base + rnd.randrange(spread + 1) for _ in range(n)]
        code = rnd.choice(["b", "h", "i", "q"]) if all(-128 <= v < 128 for v in values) else "q"
        # json: 5 and 5.0 differ, as they do in the stored statistics
        assert json.dumps(steady_stats(array(code, values))) == json.dumps(steady_stats(values)), (n, spread, base)
        trimmed = array("q", values[max(1, n // 10):n - max(1, n // 10)]) if n >= 5 else array("q", values)
        counted += _counted_stats(trimmed) is not None
    assert counted > 150  # the counted path was taken, not only the lists' one
