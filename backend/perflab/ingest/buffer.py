"""Parsed samples on their way to storage: which tools stream, series keys, and the per-series columns a
batch's records become (PointBuffer), with the line parser that produced them (Parsed). An import reads its
text into columns itself (imports/streaming.py).

Pure: nothing here reads or writes the database (ingest/store.py does).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from operator import itemgetter
from typing import Any

from perflab import parsers
from perflab.runs.models import Stream

# Sources parsed line by line as they stream, and the parser kind for each.
STREAMING = {"vmstat": "vmstat", "pidstat": "pidstat", "netqtop": "netqtop"}
# Sources parsed once, whole, when the stream closes.
ONE_SHOT = {"wrk": "wrk", "strace-c": "strace-c", "ss-s": "ss-s", "ss-ltn": "ss-ltn", "dmesg": "dmesg",
            "nstat": "nstat", "k6": "k6", "vegeta": "vegeta", "hey": "hey", "ab": "ab"}
# Every load generator's result is wrk's document (parsers/_load.py): stored as the run's "wrk"
# summary, which validity, verdicts, trends, findings and the headline read; data["tool"] says which.
LOAD_SUMMARY = "wrk"
# Record fields that describe a sample rather than measure something.
NOT_METRICS = {"pid", "tid", "uid", "time", "timestamp", "since_boot", "cpu", "command", "user", "tz", "epoch"}


def series_key(metric: str, labels: dict[str, Any]) -> str:
    if not labels:
        return metric
    return metric + "{" + ",".join(f"{k}={labels[k]}" for k in sorted(labels)) + "}"


def _units(kind: str) -> dict[str, str]:
    module = getattr(parsers, kind.replace("-", "_"), None)
    units = getattr(module, "METRICS", None)
    return dict(units) if isinstance(units, dict) else {}


def _numeric(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    f = float(value)
    return f if math.isfinite(f) else None


def records_to_points(
    source: str, record: dict[str, Any], units: dict[str, str]
) -> Iterator[tuple[str, dict[str, Any], str, float]]:
    """(metric, labels, unit, value) for every number a record carries."""
    if source == "vmstat":
        if record.get("since_boot"):
            return  # averages since boot, not a sample of the run
        for k, v in record.items():
            if k not in NOT_METRICS and (f := _numeric(v)) is not None:
                yield k, {}, units.get(k, ""), f
    elif source == "pidstat":
        labels = {"command": record.get("command", "?"), "pid": record.get("pid")}
        if record.get("tid") is not None:
            labels["tid"] = record["tid"]
        for k, v in record.items():
            if k not in NOT_METRICS and (f := _numeric(v)) is not None:
                yield k, labels, units.get(k, ""), f
    elif source == "netqtop":
        for direction in ("tx", "rx"):
            block = record.get(direction) or {}
            queues = [(q.get("queue"), q) for q in block.get("queues", [])]
            if block.get("total"):
                queues.append(("total", block["total"]))
            for queue, q in queues:
                for metric, unit in (("bps", "B/s"), ("pps", "/s"), ("avg_size_bytes", "B")):
                    if (f := _numeric(q.get(metric))) is not None:
                        yield f"{direction}.{metric}", {"queue": queue}, unit, f
                # Packet-size histogram: how many packets fell in each size bucket this interval.
                for bucket, count in (q.get("buckets") or {}).items():
                    if (f := _numeric(count)) is not None:
                        yield f"{direction}.packets_{bucket}", {"queue": queue}, "packets", f


class Parsed:
    """A streaming stream's line parser (resumed from its saved state), the samples it produced and its
    warnings. An import stores its read's samples through one (imports/streaming.py)."""

    def __init__(self, stream: Stream, state: dict[str, Any] | None = None) -> None:
        kind = STREAMING[stream.source]
        state = state or {}
        parser = parsers.line_parser(kind)
        self.parser = type(parser).from_state(state["parser"]) if state.get("parser") else parser
        self.buf = PointBuffer(stream.source, _units(kind))
        self.warnings: list[str] = list(state.get("warnings", []))

    def feed(self, seq: int, text: str) -> list[dict[str, Any]]:
        try:
            return self.parser.feed(text)
        except parsers.ParseError as exc:
            if len(self.warnings) < 50:
                self.warnings.append(f"chunk {seq}: {exc}")
            return []


class PointBuffer:
    """Samples parsed from a batch, per series key as ([microseconds], [values]), and the series they need.

    Keys are cached per (metric, labels) because a pidstat record yields a dozen metrics for the same
    process, line after line.
    """

    def __init__(self, source: str, units: dict[str, str]) -> None:
        self.source = source
        self.units = units
        self.points: dict[str, tuple[list[int], list[float]]] = {}
        self.wanted: dict[str, tuple[str, dict[str, Any], str]] = {}
        self._keys: dict[tuple[str, str], str] = {}
        self._groups: dict[tuple[tuple[Any, ...], tuple[str, ...]], tuple[list[int], list[dict[str, Any]]]] = {}
        # What _store wrote: (series id, times, values) each, in time order.
        self.stored: list[tuple[int, list[int], list[float]]] = []

    def add(self, records: list[dict[str, Any]], t: int) -> None:
        if self.source in ("vmstat", "pidstat"):
            self._add_flat(records, t)
            return
        for record in records:
            for metric, labels, unit, value in records_to_points(self.source, record, self.units):
                label_text = repr(labels) if labels else ""
                key = self._keys.get((metric, label_text))
                if key is None:
                    key = self._keys[(metric, label_text)] = series_key(metric, labels)
                    self.wanted.setdefault(key, (metric, labels, unit))
                    self.points.setdefault(key, ([], []))
                times, values = self.points[key]
                times.append(t)
                values.append(value)

    def _add_flat(self, records: list[dict[str, Any]], t: int) -> None:
        """vmstat and pidstat: every number of a record is a sample of (metric, the record's labels).

        Records are only grouped here (by labels and field names); flush() turns each group's fields
        into columns at once, with C loops: an import of 2 million samples would otherwise spend more
        time here than parsing."""
        groups = self._groups
        pidstat = self.source == "pidstat"
        for record in records:
            if pidstat:
                labels_key: tuple[Any, ...] = (record.get("command", "?"), record.get("pid"), record.get("tid"))
            elif record.get("since_boot"):
                continue  # averages since boot, not a sample of the run
            else:
                labels_key = ()
            shape = (labels_key, tuple(record))
            group = groups.get(shape)
            if group is None:
                group = groups[shape] = ([], [])
            group[0].append(t)
            group[1].append(record)

    def flush(self) -> None:
        """Columns of the grouped records, appended to their series (what records_to_points would give)."""
        for (labels_key, all_fields), (times, rows) in self._groups.items():
            fields = [f for f in all_fields if f not in NOT_METRICS]
            if not fields:
                continue
            # One C call per record for the metric fields only, then a transpose of compact tuples:
            # 40% cheaper than transposing the records' whole value views.
            pick = itemgetter(*fields)
            picked = map(pick, rows) if len(fields) > 1 else ((v,) for v in map(pick, rows))
            for field, column in zip(fields, zip(*picked), strict=True):
                kinds = set(map(type, column))
                if kinds == {int}:
                    # Kept as integers: the codec stores them without a round trip through doubles.
                    values = list(column)
                    at = times
                elif kinds <= {int, float} and all(map(math.isfinite, column)):
                    values = list(map(float, column))
                    at = times
                else:  # some None, text, bool, inf or nan: only the finite numbers are samples
                    keep = [(ti, float(v)) for ti, v in zip(times, column, strict=True)
                            if type(v) in (int, float) and math.isfinite(v)]
                    if not keep:
                        continue
                    at, values = [k[0] for k in keep], [k[1] for k in keep]
                pair = self._series(field, labels_key)
                pair[0].extend(at)
                pair[1].extend(values)
        self._groups.clear()

    def _series(self, metric: str, labels_key: tuple[Any, ...]) -> tuple[list[int], list[float]]:
        key, labels = _flat_key(self.source, metric, labels_key)
        if key not in self.points:
            self.wanted[key] = (metric, labels, self.units.get(metric, ""))
            self.points[key] = ([], [])
        return self.points[key]


@functools.lru_cache(maxsize=65536)
def _flat_key(source: str, metric: str, labels_key: tuple[Any, ...]) -> tuple[str, dict[str, Any]]:
    """(series key, labels) of a vmstat or pidstat metric: the same few hundred per stream, batch after
    batch, so they are made once. The labels dict is shared: callers must not change it."""
    labels: dict[str, Any] = {}
    if source == "pidstat":
        labels = {"command": labels_key[0], "pid": labels_key[1]}
        if labels_key[2] is not None:
            labels["tid"] = labels_key[2]
    return series_key(metric, labels), labels
