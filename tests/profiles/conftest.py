"""Fixture paths and a helper to compare call trees of profiles."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from perflab.parsers.profiles import Profile, tree

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "profiles"
CAPTURES = FIXTURES / "nginx-proxy-buffers"
EXPERIMENTS = ["direct", "default", "buffers-128x4k", "buffers-4x128k"]
FLAMEGRAPH = FIXTURES / "flamegraph"
CPU_CLOCK_PERIOD = 2004008  # ns: perf record -F 499 on cpu-clock


def read(path: Path) -> bytes:
    return path.read_bytes()


def gunzip(path: Path) -> bytes:
    return gzip.decompress(path.read_bytes())


def node_totals(profile: Profile) -> dict[str, tuple[int, int]]:
    """Frame path ("a;b;c") -> (self, total) for every node of the profile's tree."""
    t = tree(profile)
    names = t["names"]
    paths: dict[int, str] = {0: ""}
    out: dict[str, tuple[int, int]] = {}
    for i, (name_idx, self_count, total, parent) in enumerate(t["nodes"]):
        if i == 0:
            continue
        path = f"{paths[parent]};{names[name_idx]}" if paths[parent] else names[name_idx]
        paths[i] = path
        out[path] = (self_count, total)
    return out


@pytest.fixture(params=EXPERIMENTS)
def experiment(request: pytest.FixtureRequest) -> Path:
    return CAPTURES / str(request.param)
