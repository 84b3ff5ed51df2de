"""Profiles are bounded in what they cost (issue 21).

- The wide-and-deep bomb (stacks of 4,096 frames, each under its own root: a tree node per two
  bytes, ~600x through gzip) took +1.1 GiB from 52 KB on the wire and 7.4 GiB then a 500 from
  416 KB. It is refused with a 413 naming the limit, in memory a small multiple of the input.
- The tree and diff of a wide profile were 260 and 325 MB of JSON. They hold at most max_nodes
  frames, the rest summed into "[pruned]" nodes, and say what was pruned.
"""

from __future__ import annotations

import gzip
import tracemalloc
from typing import Any

import pytest
from fastapi.testclient import TestClient
from perflab.parsers.profiles import (
    MAX_NODES,
    PRUNED,
    Profile,
    ProfileError,
    diff_profiles,
    load_profile,
    tree,
)

from .test_api import _new_run, _upload

B_RUN = ";".join(["b"] * 4095)


def bomb(lines: int) -> bytes:
    """The issue's reproduction: ``a{i};b;b;...;b 1`` (4,096 frames), gzip-compressed."""
    return gzip.compress("".join(f"a{i};{B_RUN} 1\n" for i in range(lines)).encode(), compresslevel=9)


def test_wide_and_deep_bomb_is_refused_naming_the_limit_in_little_memory() -> None:
    data = bomb(1000)  # 8 MB inflated, 4 million nodes
    inflated = 1000 * (len(B_RUN) + 8)
    tracemalloc.start()
    with pytest.raises(ProfileError) as err:
        load_profile(data)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert err.value.too_large
    assert f"{MAX_NODES:,} distinct call paths" in str(err.value)
    # Its inflated bytes and text, and one 4 MB chunk's tree (stopped at the node limit): not 35
    # bytes per byte.
    assert peak < 2 * inflated + 24e6, f"{peak / 1e6:.0f} MB for {inflated / 1e6:.0f} MB inflated"


def test_wide_and_deep_bomb_upload_is_a_413_naming_the_limit(client: TestClient, project: dict[str, Any]) -> None:
    run = _new_run(client, project["slug"])
    r = _upload(client, run, bomb(600))
    assert r.status_code == 413, r.text
    assert r.json()["error"] == "payload_too_large"
    assert "distinct call paths" in r.json()["detail"] and f"{MAX_NODES:,}" in r.json()["detail"]


def _wide(n: int, other: bool = False) -> Profile:
    # n distinct leaves of decreasing weight under a few callers, plus one heavy stack.
    stacks = {f"main;worker{i % 7};leaf{i}": 1 + (n - i) // 1000 for i in range(n)}
    stacks["main;hot"] = 50_000 if not other else 90_000
    return Profile(stacks=stacks)


def _check_consistent(nodes: list[list[int]], names: list[str]) -> None:
    """Every node's total is its self plus its children's totals (the UI recomputes them so)."""
    child_sum = [0] * len(nodes)
    for i, (_, _, _, parent) in enumerate(nodes):
        if parent >= 0:
            child_sum[parent] += nodes[i][2]
    for i, (name, self_, total, _) in enumerate(nodes):
        assert total == self_ + child_sum[i], (names[name], self_, total, child_sum[i])


def test_tree_of_a_wide_profile_is_bounded_and_says_what_was_pruned() -> None:
    profile = _wide(120_000)
    full = tree(profile, max_nodes=10**9)
    assert len(full["nodes"]) == profile.frames + 1 and full["pruned"]["nodes"] == 0
    out = tree(profile, max_nodes=1000)
    real = [n for n in out["nodes"] if out["names"][n[0]] != PRUNED]
    assert len(real) == 1000
    groups = [n for n in out["nodes"] if out["names"][n[0]] == PRUNED]
    pruned = out["pruned"]
    assert pruned["nodes"] == profile.frames + 1 - 1000
    assert pruned["groups"] == len(groups) and pruned["total"] == sum(n[2] for n in groups)
    assert out["nodes"][0][2] == profile.total  # nothing lost from the totals
    _check_consistent(out["nodes"], out["names"])
    # The heaviest frames are the ones kept, and each kept node's total is exact.
    exact = {(full["names"][n[0]], n[2]) for n in full["nodes"]}
    assert all((out["names"][n[0]], n[2]) in exact for n in real)
    assert any(out["names"][n[0]] == "hot" for n in real)
    assert all(n[2] >= pruned["min_total"] for n in real)
    # A share of the total: nothing under 1% is sent.
    small = tree(profile, min_share=0.01)
    assert all(n[2] >= 0.01 * profile.total for n in small["nodes"] if small["names"][n[0]] != PRUNED)
    _check_consistent(small["nodes"], small["names"])


def test_diff_of_wide_profiles_is_bounded_and_says_what_was_pruned() -> None:
    merged = diff_profiles(_wide(60_000), _wide(70_000, other=True))
    out = merged.to_json(max_nodes=500, max_functions=100)
    assert len([n for n in out["nodes"] if out["names"][n[0]] != PRUNED]) == 500
    assert out["pruned"]["nodes"] == len(merged.name) - 500
    assert out["nodes"][0][3] == merged.base_total and out["nodes"][0][5] == merged.other_total
    groups = [n for n in out["nodes"] if out["names"][n[0]] == PRUNED]
    assert out["pruned"]["total_base"] == sum(n[3] for n in groups)
    assert len(out["functions"]) == 100 and out["functions_total"] == len(merged.functions)
    for col in (2, 4):  # base and other: totals add up in both columns
        rows = [[n[0], n[col], n[col + 1], n[1]] for n in out["nodes"]]
        _check_consistent(rows, out["names"])


def test_tree_and_diff_routes_are_bounded(client: TestClient, project: dict[str, Any]) -> None:
    run = _new_run(client, project["slug"])
    text = "".join(f"{s} {c}\n" for s, c in _wide(20_000).stacks.items()).encode()
    a = _upload(client, run, gzip.compress(text), name="a").json()["profile_id"]
    half = text[: text.rfind(b"\n", 0, len(text) // 2) + 1]
    b = _upload(client, run, half, name="b").json()["profile_id"]
    r = client.get(f"/api/profiles/{a}/tree", params={"max_nodes": 100})
    assert r.status_code == 200, r.text
    assert r.json()["pruned"]["nodes"] == 20_010 - 100  # root, main, 7 workers, hot, 20,000 leaves
    assert client.get(f"/api/profiles/{a}/tree").json()["pruned"]["nodes"] == 0  # under the default
    r = client.get(f"/api/profiles/{a}/diff", params={"other": b, "max_nodes": 50, "min_share": 0.001})
    assert r.status_code == 200, r.text
    assert r.json()["pruned"]["nodes"] > 0 and r.json()["pruned"]["max_nodes"] == 50
    assert client.get(f"/api/profiles/{a}/tree", params={"max_nodes": 0}).status_code == 422


def test_many_distinct_stacks_past_the_node_limit_are_a_413(client: TestClient, project: dict[str, Any]) -> None:
    # Fewer stacks than MAX_NODES (so the parser keeps them), more nodes (two frames each).
    run = _new_run(client, project["slug"])
    text = "".join(f"f{i};g 1\n" for i in range(MAX_NODES // 2 + 10)).encode()
    r = _upload(client, run, gzip.compress(text))
    assert r.status_code == 413, r.text
    assert f"{MAX_NODES:,} distinct call paths" in r.json()["detail"]
