"""The model's views: tree, function table, diff (checked against difffolded.pl)."""

from __future__ import annotations

import random
import time

import pytest
from perflab.parsers.profiles import (
    Profile,
    diff_profiles,
    function_table,
    load_profile,
    tree,
)

from .conftest import CAPTURES, read


def test_tree_is_preorder_with_totals_and_sorted_siblings() -> None:
    profile = Profile({"main;b;x": 2, "main;a": 3, "main": 1, "main;b-c": 4, "other": 5})

    t = tree(profile)
    names = t["names"]
    rows = [(names[n], s, total, p) for n, s, total, p in t["nodes"]]

    assert rows == [
        ("all", 0, 15, -1),
        ("main", 1, 10, 0),
        ("a", 3, 3, 1),
        ("b", 0, 2, 1),
        ("x", 2, 2, 3),
        ("b-c", 4, 4, 1),
        ("other", 5, 5, 0),
    ]
    assert profile.frames == 6


def test_function_table_counts_recursion_once() -> None:
    profile = Profile({"main;f;g;f;g;f": 10, "main;f": 5, "main;h;f": 1})

    table = {row.name: row for row in function_table(profile)}

    assert table["f"] == (("f", 16, 16))
    assert table["g"].total == 10 and table["g"].self == 0
    assert table["main"].total == 16 == profile.total
    assert [row.name for row in function_table(profile)][:2] == ["f", "main"]


def test_diff_matches_difffolded_and_normalises() -> None:
    base = load_profile(read(CAPTURES / "default" / "stacks.folded"), unit="nanoseconds")
    other = load_profile(read(CAPTURES / "buffers-4x128k" / "stacks.folded"), unit="nanoseconds")
    expected: dict[str, tuple[int, int]] = {}
    for line in read(CAPTURES / "diff-default-vs-4x128k.folded").decode().splitlines():
        stack, before, after = line.rsplit(" ", 2)
        expected[stack] = (int(before), int(after))

    d = diff_profiles(base, other)
    leaves = {
        d.path(i): (d.self_base[i], d.self_other[i])
        for i in range(1, len(d.name))
        if d.self_base[i] or d.self_other[i]
    }

    # Per stack, the same before/after counts difffolded.pl printed (it does not normalise).
    assert leaves == expected
    assert d.factor == pytest.approx(3535070112 / 3795591152)
    assert d.total_base[0] == 3535070112 and d.total_other[0] == 3795591152
    # Normalised, deltas over all functions of the root sum to zero.
    assert sum(d.self_other) * d.factor - sum(d.self_base) == pytest.approx(0, abs=1)
    # The experiment's point: with 4x128k buffers readv is a smaller share of the time.
    readv = next(f for f in d.functions if f.name == "__GI___readv")
    assert readv.delta_total < 0


def test_diff_shows_frames_only_in_one_profile() -> None:
    d = diff_profiles(Profile({"main;old": 4, "main": 4}), Profile({"main;new": 2, "main": 2}))

    nodes = {d.path(i): (d.total_base[i], d.total_other[i]) for i in range(1, len(d.name))}
    deltas = {f.name: f.delta_total for f in d.functions}

    assert nodes == {"main": (8, 4), "main;new": (0, 2), "main;old": (4, 0)}
    assert d.factor == 2.0
    assert deltas == {"main": 0.0, "new": 4.0, "old": -4.0}
    assert d.to_json()["nodes"][0] == [0, -1, 0, 8, 0, 4]


def _synthetic(frames: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    pool = [f"fn_{i:05d}" for i in range(frames // 6)]
    paths, kids = [""], [set[str]()]
    while len(paths) <= frames:
        parent = rng.randrange(len(paths)) if rng.random() < 0.3 else len(paths) - 1
        name = rng.choice(pool)
        if name in kids[parent]:
            continue
        kids[parent].add(name)
        paths.append(f"{paths[parent]};{name}" if paths[parent] else name)
        kids.append(set())
    return {p: rng.randint(1, 1000) for i, p in enumerate(paths) if i and (not kids[i] or rng.random() < 0.3)}


def test_diff_of_two_large_profiles_is_interactive() -> None:
    # bench/profiles_bench.py holds the 200 ms target; this guards against a slide to seconds.
    base = Profile(_synthetic(50_000, 1))
    other = Profile({s: c * 2 for s, c in list(base.stacks.items())[::2]} | _synthetic(2_000, 2))

    start = time.process_time()
    d = diff_profiles(base, other)
    elapsed = time.process_time() - start

    assert base.frames == 50_000
    assert len(d.name) > 50_000
    assert elapsed < 1.0


def test_a_function_named_all_is_not_the_root() -> None:
    profile = Profile({"all;x": 2, "all": 1})

    table = {row.name: row for row in function_table(profile)}
    t = tree(profile)

    assert table["all"] == ("all", 1, 3)
    assert [t["names"][n] for n, *_ in t["nodes"]] == ["all", "all", "x"]
    assert t["nodes"][1][2] == 3
