"""Format detection, gzip or not, and the decompressed-size cap."""

from __future__ import annotations

import gzip
import time
import tracemalloc
from pathlib import Path

import pytest
from perflab.parsers.profiles import (
    ProfileError,
    detect_format,
    load_profile,
    to_folded,
)

from .conftest import FIXTURES, FLAMEGRAPH, gunzip, read

CASES = [
    ("nginx-proxy-buffers/default/perf-script.txt.gz", "perf-script"),
    ("nginx-proxy-buffers/default/stacks.folded", "folded"),
    ("nginx-proxy-buffers/default/flamegraph.svg.gz", "svg"),
    ("sample-bt/nginx-default.bt", "stap"),
    ("flamegraph/example-dtrace-stacks.txt.gz", "dtrace"),
    ("flamegraph/example-perf-stacks.txt.gz", "perf-script"),
    ("flamegraph/example-perf.svg.gz", "svg"),
]


@pytest.mark.parametrize(("path", "fmt"), CASES)
def test_each_format_is_detected_gzipped_or_not(path: str, fmt: str) -> None:
    data = read(FIXTURES / path)
    plain = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
    packed = gzip.compress(plain)

    from_plain, from_gzip = load_profile(plain), load_profile(packed)

    assert detect_format(plain) == fmt
    assert from_plain.format == from_gzip.format == fmt
    assert from_plain.stacks == from_gzip.stacks
    assert from_plain.total > 0


def test_utf8_bom_and_leading_blank_lines_do_not_hide_the_format() -> None:
    data = b"\xef\xbb\xbf\n\n" + read(FIXTURES / "nginx-proxy-buffers/direct/stacks.folded")

    assert load_profile(data).format == "folded"


def test_concatenated_gzip_members_are_one_upload() -> None:
    a = b"main;a 1\n"
    b = b"main;b 2\n"

    profile = load_profile(gzip.compress(a) + gzip.compress(b))

    assert profile.stacks == {"main;a": 1, "main;b": 2}


def test_truncated_gzip_yields_what_it_holds_with_a_warning() -> None:
    text = gunzip(FIXTURES / "nginx-proxy-buffers/direct/perf-script.txt.gz")
    packed = gzip.compress(text)

    profile = load_profile(packed[: len(packed) // 2])

    assert profile.format == "perf-script"
    assert 0 < profile.total < load_profile(text).total
    assert any("gzip data ends early" in w for w in profile.warnings)


def test_corrupt_gzip_is_an_error() -> None:
    packed = bytearray(gzip.compress(b"main;a 1\n" * 1000))
    packed[20:40] = b"\xff" * 20

    with pytest.raises(ProfileError, match="corrupt gzip"):
        load_profile(bytes(packed))


def test_gzip_bomb_stops_at_the_cap_without_inflating_it_all() -> None:
    # 1 GiB of zeros in 1 MB of gzip (1024 members of 1 MiB each); the cap is 8 MiB.
    bomb = gzip.compress(b"\x00" * (1 << 20), 9) * 1024
    cap = 8 << 20

    tracemalloc.start()
    start = time.monotonic()
    with pytest.raises(ProfileError) as err:
        load_profile(bomb, max_bytes=cap)
    elapsed = time.monotonic() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    assert err.value.too_large is True
    assert "larger than 8388608 bytes" in str(err.value)
    assert elapsed < 1.0
    assert peak < 4 * cap


def test_plain_input_over_the_cap_is_too_large() -> None:
    with pytest.raises(ProfileError) as err:
        load_profile(b"main;a 1\n" * 1000, max_bytes=100)

    assert err.value.too_large is True


def test_input_errors_are_not_too_large() -> None:
    with pytest.raises(ProfileError) as err:
        load_profile(b"nothing here\n")

    assert err.value.too_large is False
    assert err.value.line == 1


@pytest.mark.parametrize("data", [b"", b"   \n\n", gzip.compress(b"")])
def test_empty_uploads_are_an_error(data: bytes) -> None:
    with pytest.raises(ProfileError, match="empty"):
        load_profile(data)


def test_a_unit_must_be_a_word() -> None:
    with pytest.raises(ProfileError, match="unit"):
        load_profile(b"main 1\n", unit="<script>")


def test_perf_example_and_its_svg_agree_on_the_total(tmp_path: Path) -> None:
    assert load_profile(read(FLAMEGRAPH / "example-perf.svg.gz")).total == load_profile(
        read(FLAMEGRAPH / "example-perf-stacks.txt.gz")
    ).total
    assert to_folded(load_profile(b"b 1\na 2\n")) == b"a 2\nb 1\n"
