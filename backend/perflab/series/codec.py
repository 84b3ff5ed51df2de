"""Compact, exact encoding of a series chunk: timestamps and values as small byte strings.

Parsers emit integers and short decimals (vmstat counts, pidstat's 12.34 %CPU), read from text. Such
values are stored as integers scaled by 10**d (the smallest d that gives every value back bit for
bit), delta-encoded, packed in the narrowest fixed width that holds every delta and zlib-compressed.
Anything else (a value with more than 6 decimals, a huge one) falls back to raw doubles, still exact.
Timestamps are microseconds; a regular chunk (t0 + i * step) stores none, the others store their
offsets delta-of-delta encoded the same way, so jitter costs a byte or two per sample.

Encoding and decoding are C loops (array, zlib, itertools.accumulate) over Python lists: about
0.1 us a value, so a 2-million-sample import spends a fraction of its parse time here.

Layout of a blob: one format byte, one scale byte, one array typecode byte, then the zlib stream; or, for
an array of at most RAW_MAX bytes, "=", the typecode and the bytes as they are. zlib.compress costs about
90 us a call whatever the size (it sets up its window and hash tables), so compressing the ten-value
chunk a live batch appends per series cost more than parsing it, to save a few dozen bytes on a row that
the stream's close merges away.
Stdlib only: the migration and the bench use it as well as the server.
"""

from __future__ import annotations

import sys
import zlib
from array import array
from collections.abc import Sequence
from datetime import UTC, datetime
from itertools import accumulate, repeat
from operator import lt, mul, sub, truediv
from typing import cast

FORMAT_SCALED = 1  # integers scaled by 10**scale, delta-encoded
FORMAT_DOUBLE = 2  # IEEE doubles as they are
MAX_SCALE = 6
# zlib's fastest level: 6x faster than its default on noisy counters, and within a few percent of its size
# (the deltas are already small).
LEVEL = 1
# Arrays up to this many bytes are stored uncompressed.
RAW_MAX = 256
# Scaled integers stay below 2**62 so that their deltas fit in 64 bits.
_LIMIT = 1 << 62
_WIDTHS = [(code, array(code).itemsize) for code in ("b", "h", "i", "q")]
_BIG_ENDIAN = sys.byteorder == "big"


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class CodecError(ValueError):
    pass


def to_us(t: datetime) -> int:
    """Microseconds since the epoch, exactly (a float timestamp would round)."""
    d = t - EPOCH
    return (d.days * 86400 + d.seconds) * 1_000_000 + d.microseconds


def from_us(us: int) -> datetime:
    return datetime.fromtimestamp(us // 1_000_000, UTC).replace(microsecond=us % 1_000_000)


def _pack(ints: Sequence[int]) -> bytes:
    """Typecode byte + zlib of the narrowest little-endian array holding `ints`."""
    lo, hi = (min(ints), max(ints)) if ints else (0, 0)
    for code, size in _WIDTHS:
        bound = 1 << (8 * size - 1)
        if -bound <= lo and hi < bound:
            break
    arr = array(code, ints)
    if _BIG_ENDIAN:
        arr.byteswap()
    data = arr.tobytes()
    if len(data) <= RAW_MAX:
        return b"=" + code.encode() + data
    return code.encode() + zlib.compress(data, LEVEL)


def _unpack(blob: bytes) -> array:  # type: ignore[type-arg]
    raw = blob[:1] == b"="
    code = chr(blob[1]) if raw and len(blob) > 1 else chr(blob[0])
    if code not in ("b", "h", "i", "q", "d"):
        raise CodecError(f"unknown array type {code!r}")
    arr = array(code)
    try:
        arr.frombytes(blob[2:] if raw else zlib.decompress(blob[1:]))
    except (zlib.error, ValueError) as exc:
        raise CodecError(f"corrupt chunk: {exc}") from None
    if _BIG_ENDIAN:
        arr.byteswap()
    return arr


def _deltas(ints: Sequence[int]) -> list[int]:
    if not ints:
        return []
    return [ints[0], *map(sub, ints[1:], ints[:-1])]


# Arrays of these typecodes hold integers: an import's columns (imports/streaming.py) are such arrays.
_INTEGER_CODES = frozenset("bhilqBHILQ")


def _scaled(values: Sequence[float]) -> tuple[int, Sequence[int]] | None:
    """(d, values * 10**d as integers) for the smallest d that gives every value back bit for bit
    (so -0.0, inf and nan never pass), or None."""
    if isinstance(values, array) and values.typecode in _INTEGER_CODES:
        # Integers by construction: as below, without looking at each value's type or copying them.
        if values and not (-_LIMIT < min(values) and max(values) < _LIMIT):
            return None
        return 0, cast(Sequence[int], values)
    if set(map(type, values)) == {int}:
        # Integers (the counts PointBuffer.flush hands over as they were parsed) are scale 0 as they are:
        # no round trip through doubles. Decoded, they are the doubles float() gives them, as before.
        if values and not (-_LIMIT < min(values) and max(values) < _LIMIT):
            return None
        return 0, cast(list[int], list(values))
    exact = array("d", values).tobytes()
    for d in range(MAX_SCALE + 1):
        s = 10**d
        try:
            ints = list(map(round, values if d == 0 else map(mul, values, repeat(float(s)))))
        except (OverflowError, ValueError):  # inf, nan
            return None
        if ints and not (-_LIMIT < min(ints) and max(ints) < _LIMIT):
            return None
        back = array("d", ints if d == 0 else map(truediv, ints, repeat(s)))
        if back.tobytes() == exact:
            return d, ints
    return None


def encode_values(values: Sequence[float]) -> bytes:
    scaled = _scaled(values)
    if scaled is None:
        arr = array("d", values)
        if _BIG_ENDIAN:
            arr.byteswap()
        data = arr.tobytes()
        if len(data) <= RAW_MAX:
            return bytes((FORMAT_DOUBLE, 0)) + b"=d" + data
        return bytes((FORMAT_DOUBLE, 0)) + b"d" + zlib.compress(data, LEVEL)
    scale, ints = scaled
    return bytes((FORMAT_SCALED, scale)) + _pack(_deltas(ints))


def decode_values(blob: bytes) -> list[float]:
    if len(blob) < 3:
        raise CodecError("value blob too short")
    fmt, scale = blob[0], blob[1]
    if fmt not in (FORMAT_SCALED, FORMAT_DOUBLE) or scale > MAX_SCALE:
        raise CodecError(f"unknown value format {fmt}/{scale}")
    arr = _unpack(blob[2:])
    if fmt == FORMAT_DOUBLE:
        return arr.tolist()
    ints = accumulate(arr)
    if scale == 0:
        return list(map(float, ints))
    return list(map(truediv, ints, repeat(10**scale)))


def encode_times(times_us: Sequence[int]) -> tuple[int, int, bytes | None]:
    """(t0 in us, step in us, offsets blob or None when every t is t0 + i * step)."""
    if not times_us:
        raise CodecError("a chunk holds at least one sample")
    t0 = times_us[0]
    step = times_us[1] - t0 if len(times_us) > 1 else 0
    regular = list(range(t0, t0 + len(times_us) * step, step)) if step else [t0] * len(times_us)
    if regular == list(times_us):
        return t0, step, None
    offsets = list(map(sub, times_us, repeat(t0)))
    return t0, step, _pack(_deltas(_deltas(offsets)))


def decode_times(t0: int, step: int, n: int, blob: bytes | None) -> list[int]:
    if blob is None:
        return list(range(t0, t0 + n * step, step)) if step else [t0] * n
    offsets = list(accumulate(accumulate(_unpack(blob))))
    if len(offsets) != n:
        raise CodecError(f"chunk says {n} samples but holds {len(offsets)} timestamps")
    return [t0 + o for o in offsets]


def is_increasing(times: Sequence[int]) -> bool:
    return all(map(lt, times[:-1], times[1:]))


def merge(parts: Sequence[tuple[Sequence[int], Sequence[float]]]) -> tuple[list[int], list[float]]:
    """Chunks of one series as one time-ordered series; a timestamp seen twice keeps its last value,
    as a re-sent sample overwrites the first."""
    times: list[int] = []
    values: list[float] = []
    for t, v in parts:
        times.extend(t)
        values.extend(v)
    if is_increasing(times):
        return times, values
    last = dict(zip(times, values))
    ordered = sorted(last)
    return ordered, [last[t] for t in ordered]


# -- blocks: what one live batch added to every series of a stream, in one blob -----------------------
# A pidstat stream has hundreds of series and a batch a second; a chunk per series per batch cost a row,
# an encode and a zlib set-up each (about 70 us), so a server core kept up with a few dozen agents.
# A block is one row per batch: the series ids and counts, then every timestamp, then every value, as
# raw int64/double arrays under one zlib stream. The stream's close merges its blocks into chunks.
BLOCK_FORMAT = b"B1"


def encode_block(series: Sequence[tuple[int, Sequence[int], Sequence[float]]]) -> bytes:
    """series: (series id, times in us, values) each; values are kept as doubles, bit for bit."""
    head = array("q", [len(series)])
    times = array("q")
    vals = array("d")
    for sid, t, v in series:
        if len(t) != len(v):
            raise CodecError(f"series {sid}: {len(t)} times for {len(v)} values")
        head.extend((sid, len(v)))
        times.extend(t)
        vals.extend(v)
    if _BIG_ENDIAN:
        for arr in (head, times, vals):
            arr.byteswap()
    return BLOCK_FORMAT + zlib.compress(head.tobytes() + times.tobytes() + vals.tobytes(), LEVEL)


def decode_block(blob: bytes) -> dict[int, tuple[list[int], list[float]]]:
    if blob[:2] != BLOCK_FORMAT:
        raise CodecError(f"unknown block format {blob[:2]!r}")
    try:
        data = zlib.decompress(blob[2:])
    except zlib.error as exc:
        raise CodecError(f"corrupt block: {exc}") from None
    arr = array("q")
    k = int.from_bytes(data[:8], "little", signed=True)
    head_end = 8 * (1 + 2 * k)
    total = 0
    try:
        arr.frombytes(data[8:head_end])
        if _BIG_ENDIAN:
            arr.byteswap()
        counts = arr[1::2]
        total = sum(counts)
        times = array("q")
        times.frombytes(data[head_end:head_end + 8 * total])
        vals = array("d")
        vals.frombytes(data[head_end + 8 * total:])
    except ValueError as exc:
        raise CodecError(f"corrupt block: {exc}") from None
    if k < 0 or len(arr) != 2 * k or len(times) != total or len(vals) != total:
        raise CodecError("corrupt block: its counts do not match its arrays")
    if _BIG_ENDIAN:
        times.byteswap()
        vals.byteswap()
    out: dict[int, tuple[list[int], list[float]]] = {}
    at = 0
    for sid, n in zip(arr[0::2], counts, strict=True):
        out[sid] = (times[at:at + n].tolist(), vals[at:at + n].tolist())
        at += n
    return out
