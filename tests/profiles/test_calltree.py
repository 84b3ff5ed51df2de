"""The stored call tree (parsers/profiles/calltree.py): what it reads back is what the stacks give,
its views and diffs equal those computed from the stacks, and a damaged blob is an error, not data."""

from __future__ import annotations

import random
import zlib

import pytest
from perflab.parsers.profiles import (
    Profile,
    ProfileError,
    build_call_tree,
    decode_call_tree,
    diff_profiles,
    diff_trees,
    function_table,
    load_profile,
    tree,
)
from perflab.parsers.profiles.calltree import MAGIC

from .conftest import CAPTURES, EXPERIMENTS, read


def _random_stacks(seed: int) -> dict[str, int]:
    """Stacks over a few names, so siblings share prefixes ("f1" < "f1x"), functions recurse, and a
    frame may be named "all" like the root."""
    rng = random.Random(seed)
    names = ["f1", "f1x", "f2", "all", "g", "g g", "é", "[unknown]"][: rng.randint(2, 8)]
    stacks: dict[str, int] = {}
    for _ in range(rng.randint(1, 60)):
        stack = ";".join(rng.choice(names) for _ in range(rng.randint(1, 7)))
        stacks[stack] = stacks.get(stack, 0) + rng.randint(1, 50)
    return stacks


def _stored(stacks: dict[str, int]) -> object:
    return decode_call_tree(build_call_tree(Profile(dict(stacks))).encode())


@pytest.mark.parametrize("seed", range(40))
def test_views_of_the_stored_tree_equal_those_of_the_stacks(seed: int) -> None:
    base, other = _random_stacks(seed), _random_stacks(seed + 1000)
    a, b = decode_call_tree(build_call_tree(Profile(dict(base))).encode()), _stored(other)

    assert a.view(unit="samples", max_nodes=50_000) == tree(Profile(dict(base)))
    assert a.view(unit="samples", max_nodes=5, min_share=0.05) == tree(Profile(dict(base)), max_nodes=5, min_share=0.05)
    assert a.function_table() == function_table(Profile(dict(base)))
    expected = diff_profiles(Profile(dict(base)), Profile(dict(other)))
    got = diff_trees(a, b)  # type: ignore[arg-type]
    assert got.to_json() == expected.to_json()
    assert got.to_json(max_nodes=4) == expected.to_json(max_nodes=4)


def test_real_captures_diff_the_same_from_stored_trees() -> None:
    profiles = [load_profile(read(CAPTURES / e / "perf-script.txt.gz")) for e in EXPERIMENTS[:2]]
    trees = [decode_call_tree(build_call_tree(load_profile(read(CAPTURES / e / "perf-script.txt.gz"))).encode())
             for e in EXPERIMENTS[:2]]

    assert diff_trees(*trees).to_json() == diff_profiles(*profiles).to_json()
    assert trees[0].size - 1 == profiles[0].frames
    assert trees[0].total == profiles[0].total


def test_a_deep_profile_stores_its_tree_not_its_text() -> None:
    deep = ";".join(f"frame_{i}" for i in range(4000))
    stacks = {f"{deep};leaf_{i}": 1 for i in range(200)}  # 200 stacks of 4,001 frames: ~8 MB of text
    blob = build_call_tree(Profile(stacks)).encode()

    assert len(blob) < 100_000
    assert decode_call_tree(blob).size == 1 + 4000 + 200


@pytest.mark.parametrize("blob", [
    b"", b"folded;text 1\n", MAGIC + b"not zlib", MAGIC + zlib.compress(b"short"),
])
def test_a_damaged_stored_tree_is_an_error(blob: bytes) -> None:
    with pytest.raises(ProfileError):
        decode_call_tree(blob)


def test_a_truncated_stored_tree_is_an_error() -> None:
    good = build_call_tree(Profile({"a;b": 1, "a;c": 2})).encode()
    raw = zlib.decompress(good[len(MAGIC):])
    with pytest.raises(ProfileError, match="truncated"):
        decode_call_tree(MAGIC + zlib.compress(raw[:-3]))
