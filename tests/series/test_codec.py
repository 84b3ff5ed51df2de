"""The series chunk encoding gives back every value bit for bit, and is small on real tool output."""

from __future__ import annotations

import math
import struct
from typing import Any

import pytest
from perflab import parsers
from perflab.ingest.pipeline import PointBuffer, _units, records_to_points, series_key
from perflab.series import codec

from tests.conftest import FIXTURES

VMSTAT = FIXTURES / "captures" / "nginx-proxy-buffers" / "default" / "run1" / "vmstat.txt"


def _bits(values: list[float]) -> list[bytes]:
    return [struct.pack("<d", v) for v in values]


@pytest.mark.parametrize("values", [
    [0.0, 1.0, 2.0, 1e15, -3.0],                       # vmstat counters
    [12.34, 0.01, 99.99, 100.0, 0.0],                  # pidstat percentages, 2 decimals
    [0.1 + 0.2, math.pi, 1e-300, 5e-324, 1.7976931348623157e308],  # not short decimals: raw doubles
    [-0.0, 0.0],                                       # the sign of zero survives
    [2.0**62, -(2.0**62)],                             # beyond the scaled-integer range
    [7.0],
])
def test_values_round_trip_exactly(values: list[float]) -> None:
    assert _bits(codec.decode_values(codec.encode_values(values))) == _bits(values)


def test_times_regular_cost_nothing_and_jitter_round_trips() -> None:
    regular = [1_795_000_000_000_000 + i * 1_000_000 for i in range(300)]
    t0, step, blob = codec.encode_times(regular)
    assert (t0, step, blob) == (regular[0], 1_000_000, None)
    assert codec.decode_times(t0, step, len(regular), blob) == regular
    jitter = [t + (i * 7919) % 3000 for i, t in enumerate(regular)]
    t0, step, blob = codec.encode_times(jitter)
    assert blob is not None and len(blob) < 2 * len(jitter)
    assert codec.decode_times(t0, step, len(jitter), blob) == jitter


def test_merge_orders_by_time_and_keeps_the_last_value_of_an_instant() -> None:
    times, values = codec.merge([([3, 4], [30.0, 40.0]), ([1, 3], [10.0, 31.0])])
    assert (times, values) == ([1, 3, 4], [10.0, 31.0, 40.0])


def test_a_real_vmstat_capture_costs_about_a_byte_a_sample() -> None:
    parser = parsers.line_parser("vmstat")
    buf = PointBuffer("vmstat", _units("vmstat"))
    for i, line in enumerate(VMSTAT.read_text().splitlines()):
        buf.add(parser.feed(line), 1_795_000_000_000_000 + i * 1_000_000)
    buf.flush()
    total = n = 0
    for times, values in buf.points.values():
        blob = codec.encode_values(values)
        assert _bits(codec.decode_values(blob)) == _bits(values)
        total += len(blob)
        n += len(values)
    assert n > 100
    # A double is 8 bytes; vmstat's slowly moving integers pack into about one.
    assert total / n < 2.5, total / n


def test_a_corrupt_blob_is_an_error_not_wrong_numbers() -> None:
    with pytest.raises(codec.CodecError):
        codec.decode_values(b"\x09\x00b")
    # A short array is stored as it is ("=" + typecode): cut mid-value, it is refused, not misread.
    small = codec.encode_values([12.34, 0.5, 7.0])
    assert small[2:3] == b"="
    with pytest.raises(codec.CodecError):
        codec.decode_values(small[:-1])


def test_short_and_long_arrays_both_round_trip() -> None:
    # Up to RAW_MAX bytes an array skips zlib (whose set-up costs more than a live batch's parse).
    for n in (1, 10, 31, 32, 33, 1000):
        values = [round(i * 0.37 % 100, 2) for i in range(n)]
        blob = codec.encode_values(values)
        assert (blob[2:3] == b"=") == (n * 2 <= codec.RAW_MAX), n  # 2-byte deltas
        assert _bits(codec.decode_values(blob)) == _bits(values)
        jitter = [1_795_000_000_000_000 + i * 1_000_000 + (i * 7919) % 3000 for i in range(n + 2)]
        t0, step, tblob = codec.encode_times(jitter)
        assert codec.decode_times(t0, step, len(jitter), tblob) == jitter


def test_a_block_gives_back_every_series_of_a_batch_exactly() -> None:
    t = [1_795_000_000_000_000 + i * 1_000_000 for i in range(30)]
    series = [(7, t, [float(i) for i in range(30)]),
              (8, t[:3], [-0.0, math.inf, 5e-324]),           # odd doubles survive bit for bit
              (9, t[:1], [1.7976931348623157e308])]
    back = codec.decode_block(codec.encode_block(series))
    assert list(back) == [7, 8, 9]
    for sid, times, values in series:
        assert back[sid][0] == times and _bits(back[sid][1]) == _bits(values)
    with pytest.raises(codec.CodecError):
        codec.encode_block([(1, t[:2], [1.0])])
    blob = codec.encode_block(series)
    for bad in (blob[:-3], b"B2" + blob[2:], blob[:2] + b"not zlib"):
        with pytest.raises(codec.CodecError):
            codec.decode_block(bad)


@pytest.mark.parametrize("kind", ["vmstat", "pidstat"])
def test_the_unrolled_point_buffer_yields_what_records_to_points_says(kind: str) -> None:
    # The fast path that imports take must store the very series and values the generic one names.
    parser = parsers.line_parser(kind)
    buf = PointBuffer(kind, _units(kind))
    expected: dict[str, list[float]] = {}
    for i, line in enumerate((VMSTAT.parent / f"{kind}.txt").read_text().splitlines()):
        records = parser.feed(line)
        buf.add(records, i)
        for record in records:
            for metric, labels, _unit, value in records_to_points(kind, record, _units(kind)):
                expected.setdefault(series_key(metric, labels), []).append(value)
    buf.flush()
    assert expected and {k: v for k, (_, v) in buf.points.items()} == expected


@pytest.mark.parametrize("path", [
    VMSTAT, VMSTAT.parent / "pidstat.txt", *sorted((FIXTURES / "netqtop").glob("*.txt"))[:2],
    *sorted((FIXTURES / "vmstat").glob("*.txt"))[:4],
])
def test_the_import_read_previews_what_perflab_parse_prints(path: Any) -> None:
    # Imports read a streaming kind once, into columns; the preview must not change.
    from perflab.imports.streaming import StreamRead

    kind = "netqtop" if "netqtop" in str(path) else "pidstat" if "pidstat" in path.name else "vmstat"
    text = path.read_text()
    try:
        expected = parsers.parse(kind, text)
    except parsers.ParseError:
        with pytest.raises(parsers.ParseError):
            StreamRead(kind, text)
        return
    for keep in (True, False):
        read = StreamRead(kind, text, keep=keep)
        records = "intervals" if kind == "netqtop" else "samples"
        assert read.doc == {**expected, records: []}
        assert read.records == len(expected[records])
        assert read.lines == len(text.splitlines())


@pytest.mark.parametrize("code", ["b", "h", "i", "l", "q"])
def test_integer_arrays_encode_as_the_lists_of_their_values(code: str) -> None:
    # An import's columns are arrays of the narrowest integer type: the same bytes as a list of ints.
    from array import array

    bound = 1 << (8 * array(code).itemsize - 1)
    for values in ([], [0], [1, 2, 3, 2, 1], [-bound, bound - 1, 0] * 50, list(range(-100, 100)) * 3):
        assert codec.encode_values(array(code, values)) == codec.encode_values(values)
        assert codec.decode_values(codec.encode_values(array(code, values))) == [float(v) for v in values]


@pytest.mark.parametrize("text", [
    "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----",
    'quotes " and backslashes \\ and a tab\t', "verbatim non-ASCII: 交换 空闲 ü", "",
    "a lone surrogate \ud800 as an agent may decode broken bytes",  # the json module's way, escaped
])
def test_raw_lines_round_trip_exactly(text: str) -> None:
    """A raw chunk (what every parse and reparse reads back) holds each line's text and both times bit for bit."""
    from perflab.ingest.pipeline import decode_lines, encode_lines

    lines = [(1764000000.123456, -0.0, text), (5e-324, 1.7976931348623157e308, text + "x"), (0.1 + 0.2, 3.0, text)]
    back = decode_lines(encode_lines(iter(lines)))
    assert [t for _, _, t in back] == [t for _, _, t in lines]
    assert _bits([x for w, m, _ in back for x in (w, m)]) == _bits([x for w, m, _ in lines for x in (w, m)])
