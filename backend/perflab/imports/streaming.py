"""An import of a streaming kind (vmstat, pidstat, netqtop), read in bounded blocks of lines.

What the import stores is what the record-per-line import stored (tests/imports/test_stream_equality.py
compares every fixture): the same series, times, values, statistics, raw lines and their times, warnings
and run window. It no longer holds a list of every line, a record per line and the parse document beside
them (an 8 MB vmstat log took +165-182 MiB, a 64 MB one 1.1 GiB): each block of lines is parsed, its
samples go into compact columns (``array``), and what the preview and the run window need (counts,
first and last timestamps, warnings) is gathered on the way.

A sample's time depends on when its output began (its first timestamp, or the run's start, known once
every file is read): columns keep each sample's interval number (``k``), turned into microseconds once the
base is known, and the raw chunk (every line with its time) is written then, by a second pass over the text.
"""

from __future__ import annotations

import json
import math
import re
from array import array
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from itertools import accumulate, islice, repeat
from operator import add, itemgetter, mul, sub
from typing import Any

from perflab import parsers
from perflab.ingest.buffer import NOT_METRICS, PointBuffer, _flat_key, _units, records_to_points, series_key
from perflab.ingest.store import LinesWriter
from perflab.parsers._common import check_text
from perflab.parsers.vmstat import VmstatLineParser

# Characters of text parsed at a time, cut after a newline: ~10,000 vmstat lines. What a block holds (its
# lines, their tokens) is freed before the next one.
BLOCK_CHARS = 1 << 20


def line_blocks(text: str, size: int | None = None) -> Iterator[list[str]]:
    """``split_lines(text)`` (newlines only, a CRLF's \\r dropped, no empty last line), a block at a time."""
    size = size or BLOCK_CHARS
    pos, end_of_text = 0, len(text)
    while pos < end_of_text:
        end = text.find("\n", pos + size - 1)
        end = end_of_text if end < 0 else end + 1
        block = text[pos:end]
        lines = block.split("\n")
        if lines[-1] == "":
            lines.pop()  # the block ends with its newline (only the text's last line may lack one)
        if "\r" in block:
            lines = [ln.removesuffix("\r") for ln in lines]
        yield lines
        pos = end


# -- when an output ran: its first and last timestamps --------------------------------------------------------

_OFFSET = re.compile(r"[+-]\d\d:\d\d")


def _when(value: Any) -> tuple[datetime | None, bool]:
    """(the moment an output printed, whether its time zone had to be assumed)."""
    if not isinstance(value, str):
        return None, False
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None, False
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC), True
    return moment, False


def _all_end_with(stamps: Sequence[Any], offset: str) -> bool:
    """Whether every stamp is a string ending in ``offset``, tested in C (a vmstat -t log's all are)."""
    try:
        return all(map(str.endswith, stamps, repeat(offset)))
    except TypeError:  # not a string: an unreadable stamp (None)
        return False


class Stamps:
    """The first and last readable timestamps of an output's records, and whether any lacked a time zone,
    given a block of stamps at a time (``imports.service.data_times`` gives them all at once)."""

    def __init__(self) -> None:
        self.start: datetime | None = None
        self.end: datetime | None = None
        self.naive = False
        self._offset: str | None = None

    def add(self, stamps: Sequence[Any]) -> None:
        rest: Sequence[Any] = stamps
        if self.start is None:
            first = next((i for i, v in enumerate(stamps) if _when(v)[0] is not None), None)
            if first is None:
                return  # none readable: nothing before the first readable stamp counts
            moment, self.naive = _when(stamps[first])
            self.start = moment
            # A 100,000-line log has as many stamps: those ending in the first one's "+HH:MM" are aware
            # without parsing each (no naive ISO time ends so; a stamp that does not parse counts for nothing).
            tail = str(stamps[first])[-6:]
            self._offset = tail if _OFFSET.fullmatch(tail) else None
            rest = stamps[first + 1:]
        offset = self._offset
        if not self.naive and not (offset and _all_end_with(rest, offset)):
            self.naive = any(_when(v)[1] for v in rest if not (offset and isinstance(v, str) and v.endswith(offset)))
        last = next((m for m in (_when(v)[0] for v in reversed(stamps)) if m is not None), None)
        if last is not None:
            self.end = last

    def times(self, duration: Any = None) -> dict[str, Any]:
        """What ``imports.service.data_times`` says of the output."""
        if self.start is None:
            return {"start": None, "end": None, "naive": False, "duration_s": duration}
        return {"start": self.start, "end": self.end, "naive": self.naive, "duration_s": duration}


# -- samples as columns -----------------------------------------------------------------------------------------

_INT, _FLOAT, _FILTERED = 0, 1, 2
_WIDTHS = [(code, 1 << (8 * array(code).itemsize - 1)) for code in ("b", "h", "i", "q")]


def _int_code(lo: int, hi: int) -> str | None:
    """The narrowest array typecode holding lo..hi."""
    for code, bound in _WIDTHS:
        if -bound <= lo and hi < bound:
            return code
    return None


def _finite(column: Sequence[Any]) -> bool:
    return all(map(math.isfinite, column))


class _Column:
    """One metric field of one record shape, every value so far, typed as PointBuffer.flush types a whole
    column: integers while every value is one (in the narrowest array holding them), else doubles while every
    value is a finite number, else only the finite numbers, as doubles, with their own interval numbers."""

    __slots__ = ("ks", "mode", "values")

    def __init__(self) -> None:
        self.mode = _INT
        self.values: Any = array("b")
        self.ks: array[int] | None = None

    def extend(self, column: Sequence[Any], ks: Sequence[int], shape_ks: array[int], before: int) -> None:
        """``column``: this field's values in a block's rows of the shape, at interval numbers ``ks``;
        ``shape_ks[:before]``: the shape's rows before them."""
        kinds = set(map(type, column))
        mode = self.mode
        if mode == _INT and kinds == {int}:
            self.ints(column)
            return
        if mode != _FILTERED and kinds <= {int, float} and _finite(column):
            if mode == _INT:
                self.values = array("d", self.values)
                self.mode = _FLOAT
            self.values.extend(column)
            return
        if mode != _FILTERED:
            # Some None, text, bool, inf or nan: only the finite numbers are samples, with their own times.
            self.values = array("d", self.values)
            self.ks = shape_ks[:before]
            self.mode = _FILTERED
        assert self.ks is not None
        keep = [(k, float(v)) for k, v in zip(ks, column, strict=True)
                if type(v) in (int, float) and math.isfinite(v)]
        self.ks.extend(k for k, _ in keep)
        self.values.extend(v for _, v in keep)

    def ints(self, column: Sequence[int]) -> None:
        """A block of integers, in a column of integers so far (``extend`` when they are known to be)."""
        values = self.values
        if isinstance(values, array):
            try:
                # An array built from the list, then appended: half the time of extending by the list.
                values.extend(array(values.typecode, column))
                return
            except OverflowError:  # wider than the array: it holds every value so far, widened for these
                pass
            code = _int_code(min(column), max(column))
            if code is None:  # beyond 64 bits: kept as Python integers, as the records held them
                self.values = values = list(values)
            elif array(code).itemsize > values.itemsize:
                self.values = values = array(code, values)
        values.extend(column)


class _Shape:
    """Records of one shape (labels and field names): their interval numbers and a column per metric field."""

    __slots__ = ("columns", "fields", "ks", "labels_key")

    def __init__(self, labels_key: tuple[Any, ...], all_fields: Sequence[str]) -> None:
        self.labels_key = labels_key
        self.fields = [f for f in all_fields if f not in NOT_METRICS]
        self.ks: array[int] = array("q")
        self.columns = [_Column() for _ in self.fields]

    def extend(self, ks: Sequence[int], columns: Iterable[Sequence[Any]], ints: bool = False) -> None:
        """Rows at interval numbers ``ks``: a column of values per field. ``ints``: every value is an int."""
        before = len(self.ks)
        self.ks.extend(array("q", ks))
        for col, values in zip(self.columns, columns, strict=True):
            if ints and col.mode == _INT:
                col.ints(values)
            else:
                col.extend(values, ks, self.ks, before)


def _times(ks: Sequence[int], base: float, step: float) -> array[int]:
    """Microseconds of interval numbers: round((base + k * step) * 1e6), as the line-by-line import timed them."""
    return array("q", map(round, map(mul, map(add, repeat(base), map(mul, ks, repeat(step))), repeat(1e6))))


class Columns:
    """A streaming kind's samples, per series, as compact columns of values and interval numbers.

    vmstat and pidstat records are grouped by shape (labels and field names) as PointBuffer groups them, so
    that series, their order, their values' types and a series fed by two shapes come out as PointBuffer
    gives them for the whole text at once; netqtop's nested records go through records_to_points."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.units = _units(source)
        self.shapes: dict[tuple[Any, ...], _Shape] = {}
        # netqtop: key -> (metric, labels, unit), (interval numbers, values)
        self.wanted: dict[str, tuple[str, dict[str, Any], str]] = {}
        self.nested: dict[str, tuple[array[int], array[float]]] = {}
        self._keys: dict[tuple[str, str], str] = {}

    def shape(self, labels_key: tuple[Any, ...], all_fields: tuple[str, ...]) -> _Shape:
        key = (labels_key, all_fields)
        found = self.shapes.get(key)
        if found is None:
            found = self.shapes[key] = _Shape(labels_key, all_fields)
        return found

    def add_records(self, groups: dict[tuple[Any, ...], tuple[list[int], list[dict[str, Any]]]]) -> None:
        """A block's dict records (pidstat), grouped by shape: (interval numbers, records) each."""
        for (labels_key, all_fields), (ks, rows) in groups.items():
            shape = self.shape(labels_key, all_fields)
            fields = shape.fields
            if not fields:
                continue
            pick = itemgetter(*fields)
            picked = map(pick, rows) if len(fields) > 1 else ((v,) for v in map(pick, rows))
            shape.extend(ks, zip(*picked, strict=True))

    def add_nested(self, records: list[dict[str, Any]], k: int) -> None:
        """netqtop: an interval's records, each number its own series."""
        for record in records:
            for metric, labels, unit, value in records_to_points(self.source, record, self.units):
                label_text = repr(labels) if labels else ""
                key = self._keys.get((metric, label_text))
                if key is None:
                    key = self._keys[(metric, label_text)] = series_key(metric, labels)
                    self.wanted.setdefault(key, (metric, labels, unit))
                    self.nested.setdefault(key, (array("q"), array("d")))
                ks, values = self.nested[key]
                ks.append(k)
                values.append(value)

    def point_buffer(self, base: float, step: float) -> PointBuffer:
        """The samples as PointBuffer holds them once flushed, timed from ``base`` (seconds) ``step`` seconds
        an interval: ready for ingest.store.store_points."""
        buf = PointBuffer(self.source, self.units)
        for key, (ks, values) in self.nested.items():
            buf.wanted[key] = self.wanted[key]
            # Arrays where PointBuffer has lists: store_points, the codec and the statistics take any sequence.
            buf.points[key] = (_times(ks, base, step), values)  # type: ignore[assignment]
        parts: dict[str, list[tuple[Sequence[int], Sequence[Any]]]] = {}
        for shape in self.shapes.values():
            if not shape.fields:
                continue
            times = _times(shape.ks, base, step)  # shared by the shape's series: encoded once
            for field, col in zip(shape.fields, shape.columns, strict=True):
                if col.mode == _FILTERED:
                    if not col.values:
                        continue
                    assert col.ks is not None
                    at: Sequence[int] = _times(col.ks, base, step)
                else:
                    at = times
                key, labels = _flat_key(self.source, field, shape.labels_key)
                if key not in parts:
                    buf.wanted[key] = (field, labels, self.units.get(field, ""))
                    parts[key] = []
                parts[key].append((at, col.values))
        for key, found in parts.items():
            if len(found) == 1:
                buf.points[key] = found[0]  # type: ignore[assignment]
            else:  # one series from two shapes: one after the other, as PointBuffer appends them
                buf.points[key] = ([t for at, _ in found for t in at], [v for _, vs in found for v in vs])
        return buf


# -- one output ---------------------------------------------------------------------------------------------------


def _line_ks(ks: array[int], has: bytearray, count: int) -> None:
    """Append each line's interval number, max(records so far - 1, 0), given which lines gave a record."""
    ks.extend(map(max, map(sub, islice(accumulate(has, initial=count), 1, None), repeat(1)), repeat(0)))


class StreamRead:
    """A streaming kind's output read for an import: the preview's figures, the parser's state, and (when
    ``keep``) every sample in columns and each line's interval number.

    ``doc`` is what ``parsers.parse`` returns without its records ("samples", "intervals" empty): ``records``
    counts them. A ParseError propagates, as from parsers.parse."""

    def __init__(self, kind: str, text: str, *, keep: bool = True) -> None:
        check_text(text)
        self.kind = kind
        parser = parsers.line_parser(kind)
        self.lines = 0
        self.records = 0
        self.stamps = Stamps()
        self.columns = Columns(kind) if keep else None
        self.line_k: array[int] | None = array("q") if keep else None
        # pidstat: the interval number so far and the time that opened it
        self._k = -1
        self._last_key: Any = object()
        for lines in line_blocks(text):
            if isinstance(parser, VmstatLineParser):
                self._vmstat(parser, lines)
            else:
                self._lines(parser, lines)
            self.lines += len(lines)
        # What parse_pending would have saved: the state before finish(), which flush_parser calls later.
        self.state: dict[str, Any] = json.loads(json.dumps(parser.state()))
        tail = parser.finish()
        self.records += len(tail)
        self._stamps(tail)
        self.doc = parser.result([])

    def _stamps(self, records: list[dict[str, Any]]) -> None:
        if self.columns is not None and records:
            self.stamps.add([r.get("time" if self.kind == "netqtop" else "timestamp") for r in records])

    def _vmstat(self, parser: VmstatLineParser, lines: list[str]) -> None:
        runs = parser.feed_rows(lines)
        columns, line_k = self.columns, self.line_k
        count = self.records
        if columns is None or line_k is None:
            self.records += sum(len(run.at) for run in runs)
            return
        has = bytearray(len(lines))
        for run in runs:
            first = self.records
            self.records += len(run.at)
            for i in run.at:
                has[i] = 1
            self.stamps.add(run.stamps)
            cols = run.columns
            width, skip, n = len(cols), 0, len(run.at)
            if run.since_boot:  # averages since boot, not a sample of the run
                skip, first, n = len(cols), first + 1, n - 1
            if not n:
                continue
            shape = columns.shape((), tuple(dict.fromkeys([*cols, "since_boot", "timestamp", "tz"])))
            if not shape.fields:
                continue
            # A label printed twice is one field of the record, holding the last column's values.
            where = {name: i for i, name in enumerate(cols)}
            flat = run.values
            shape.extend(range(first, first + n), [flat[skip + where[f]::width] for f in shape.fields], ints=True)
        _line_ks(line_k, has, count)

    def _lines(self, parser: parsers.LineParser, lines: list[str]) -> None:
        """pidstat and netqtop, a line at a time through feed(): a block's records, grouped, into columns."""
        feed = parser.feed
        columns, line_k = self.columns, self.line_k
        if columns is None or line_k is None:
            for line in lines:
                self.records += len(feed(line))
            return
        pidstat = self.kind == "pidstat"
        groups: dict[tuple[Any, ...], tuple[list[int], list[dict[str, Any]]]] = {}
        stamps: list[Any] = []
        k, last_key = self._k, self._last_key
        for line in lines:
            records = feed(line)
            if records:
                self.records += len(records)
                if pidstat:
                    # pidstat prints one line per process per interval: those share the interval's number.
                    for rec in records:
                        key = rec.get("time") or rec.get("timestamp")
                        if key is None or key != last_key:
                            k += 1
                            last_key = key
                    at = max(k, 0)
                    for rec in records:
                        stamps.append(rec.get("timestamp"))
                        shape = ((rec.get("command", "?"), rec.get("pid"), rec.get("tid")), tuple(rec))
                        group = groups.get(shape)
                        if group is None:
                            group = groups[shape] = ([], [])
                        group[0].append(at)
                        group[1].append(rec)
                else:
                    # netqtop: an interval a record, each the next interval.
                    at = self.records - 1
                    stamps.extend(rec.get("time") for rec in records)
                    columns.add_nested(records, at)
                line_k.append(at)
            else:
                line_k.append(max(k, 0) if pidstat else max(self.records - 1, 0))
        self._k, self._last_key = k, last_key
        self.stamps.add(stamps)
        columns.add_records(groups)

    def times(self) -> dict[str, Any]:
        """imports.service.data_times of the output."""
        return self.stamps.times()

    def store(self, text: str, base: float, step: float) -> tuple[bytes, float | None, PointBuffer]:
        """(the raw chunk: every line of ``text`` with its time, as ingest.store.encode_lines writes it; the
        last line's time; the samples, ready for ingest.store.store_points), timed from ``base``."""
        if self.columns is None or self.line_k is None:
            raise ValueError("read without keep: nothing to store")
        writer = LinesWriter()
        line_k = self.line_k
        at = 0
        for lines in line_blocks(text):
            ks = line_k[at:at + len(lines)]
            at += len(lines)
            writer.add(zip(map(add, repeat(base), map(mul, ks, repeat(step))), repeat(0.0), lines))
        last = base + line_k[-1] * step if line_k else None
        return writer.finish(), last, self.columns.point_buffer(base, step)
