"""Properties: any bytes give a Profile or a ProfileError; folded text round-trips."""

from __future__ import annotations

import gzip
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from perflab.parsers.profiles import (
    Profile,
    ProfileError,
    diff_profiles,
    function_table,
    load_profile,
    to_folded,
    tree,
)

from .conftest import CAPTURES, gunzip

SEED_LINES = gunzip(CAPTURES / "direct" / "perf-script.txt.gz").split(b"\n")[:200]


def _loads_or_refuses(data: bytes) -> None:
    try:
        profile = load_profile(data, max_bytes=1 << 20)
    except ProfileError as err:
        assert str(err)
        return
    assert isinstance(profile, Profile)
    assert profile.total == sum(profile.stacks.values())
    assert all(count >= 0 for count in profile.stacks.values())
    tree(profile)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2000))
def test_arbitrary_bytes(data: bytes) -> None:
    _loads_or_refuses(data)
    _loads_or_refuses(gzip.compress(data))


# Lines that look like each format, shuffled and mangled: reaches deeper than random bytes.
PIECES = st.sampled_from(
    [
        *SEED_LINES[:60],
        b"",
        b"#",
        b"main;a 3",
        b"main;a",
        b" 12",
        b"\t7",
        b" 0x4121aa : ngx_create_pool+0x1a/0x90 [/opt/nginx/sbin/nginx]",
        b"CPU     ID                    FUNCTION:NAME",
        b"<svg xmlns='http://www.w3.org/2000/svg'>",
        b"<g><title>a (1 samples, 100%)</title><rect x='10' y='10' width='5' height='15'/></g>",
        b"</svg>",
        b"java 1 1.0: 10 cycles:",
        b"\tffff x->y+0x1 (/m)",
        b"a 1 2: 99999999999999999999999 cpu-clock:",
        b"\xff\xfe\x00",
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PIECES, max_size=40), st.sampled_from([b"\n", b"\r\n"]))
def test_format_shaped_garbage(lines: list[bytes], eol: bytes) -> None:
    _loads_or_refuses(eol.join(lines))


FRAME = st.text(
    alphabet=st.characters(blacklist_characters=";\n\r\x00", blacklist_categories=("Cs",)),
    min_size=1,
    max_size=12,
    # A last frame ending in " 12" would read as difffolded's two-count line, as in flamegraph.pl.
).filter(lambda s: s == s.strip() and s.strip() and not re.search(r"\s\d+$", s))
STACKS = st.dictionaries(
    st.lists(FRAME, min_size=1, max_size=6).map(";".join),
    st.integers(min_value=1, max_value=10**12),
    min_size=1,
    max_size=30,
)


@settings(max_examples=100, deadline=None)
@given(STACKS, STACKS)
def test_folded_round_trip_and_consistent_views(a: dict[str, int], b: dict[str, int]) -> None:
    profile = load_profile(to_folded(Profile(a)), unit="samples")
    t = tree(profile)
    table = function_table(profile)
    d = diff_profiles(profile, Profile(b))

    assert profile.stacks == a
    assert t["nodes"][0][2] == sum(a.values())
    assert all(row.total <= profile.total for row in table)
    assert sum(row.self for row in table) == profile.total
    assert d.total_base[0] == sum(a.values()) and d.total_other[0] == sum(b.values())
    for i, (_, self_count, total, parent) in enumerate(t["nodes"]):
        assert parent < i
        assert self_count <= total
