"""Imports of streaming kinds (vmstat, pidstat, netqtop), and everything such an import stores, as plain
data: the oracle of tests/imports/test_stream_equality.py.

``stream_expected.json.gz`` beside this file holds what the import stored for every case before imports
streamed (computed by ``python tests/imports/stream_cases.py`` run against the code of commit 4f19fe3, whose
import parsed a text into a record per line, with live batches counting their samples on the stream; never
written by hand). The test imports the same cases with
today's code and compares everything: the answer and preview, the run (window, status reasons), streams
(counts, parser state, error), raw chunks (lines and their times), series (keys, labels, units, points,
stats, in creation order), their chunks (times and values, encoded byte for byte), summaries, artifacts.

The import time is frozen (``FROZEN_NOW``): a run whose outputs print no time starts then, and its samples
are timed from it, so two imports compare byte for byte.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
EXPECTED = Path(__file__).resolve().parent / "stream_expected.json.gz"
FROZEN_NOW = datetime(2026, 11, 26, 9, 30, 15, 123456, tzinfo=UTC)

STREAMING_DIRS = ("vmstat", "pidstat", "netqtop")


# -- texts the fixtures lack: the vmstat fast path's edge cases, header changes, blocks of one shape ----------

def _vmstat_edges() -> str:
    head = ("procs -----------memory---------- ---swap-- -----io---- -system-- -------cpu------- -----timestamp-----\n"
            " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st gu                 UTC\n")
    row = " 1  0      0 {free} 10000 200000    0    0     0    12  100  200  1  2 97  0  0  0 2026-11-22 02:03:{s:02d}\n"
    out = [head]
    for s in range(8):
        out.append(row.format(free=500000 + s * 7, s=s))
    out += [
        " 1  0      0 500100 10000 200000    0    0     0    12  100  200  1  2 97  0  0  0\n",  # no timestamp
        " 1  0      0 500100 10000 200000    0    0     0    12  100  200  1  2 97  0  0  0 2026-11-2x 02:04:00\n",
        " 1  0      0 500100 10000 200000    0    0     0    12  100  200  1  2 97  0  0  0 2026-13-45 02:04:01\n",
        " 1  0      0 500100 10000 200000    0    0     0    12  100  200  1  2 97  0  0  0 2026-11-22 12:3::45\n",
        " 1  0      0 5_00100 10000 200000   0    0     0    12  100  200  1  2 97  0  0  0 2026-11-22 02:04:02\n",
        " 1  0      0 ٣00100 10000 200000    0    0     0    12  100  200  1  2 97  0  0  0 2026-11-22 02:04:03\n",
        " +1  -0     0 500100 10000 200000    0    0     0    12  100  200  1  2 97  0  0  0 2026-11-22 02:04:04\r\n",
        "...\n",
        " 1  0      0 500100 10000\n",  # cut off
        "some junk here\n",
        "\n",
        "   \t \n",
        " 1  0      0 99999999999999999999999 10000 200000 0 0 0 12 100 200 1 2 97 0 0 0 2026-11-22 02:04:05\n",
        " 1  0      0 500100 10000 200000    0    0     0    12  100  200  1  2 97  0  0  0 2026-11-22 02:04:06\n",
    ]
    # A new header: -a (inact/active), then back to the first one; a zone change.
    out.append(" r  b   swpd   free  inact active   si   so    bi    bo   in   cs us sy id wa st gu                 PST\n")
    for s in range(3):
        out.append(f" 2  0      0 400000  {3000 + s} 90000    0    0     0     8  300  400  5  5 90  0  0  0 2026-11-22 02:05:0{s}\n")
    out.append(head.split("\n")[1] + "\n")
    for s in range(3):
        out.append(row.format(free=600000 + s, s=10 + s))
    # A header without -t: rows have no timestamps.
    out.append(" r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st\n")
    for s in range(4):
        out.append(f" 0  0      0 700000 10000 200000    0    0     0    {s}  100  200  1  2 97  0  0\n")
    out.append(" 0  0      0 700000 10000 200000    0    0     0    5  100  200  1  2 97  0  0  9 9\n")  # two extra
    return "".join(out)


def _vmstat_duplicate_labels() -> str:
    # 'r' twice and a label no vmstat prints: kept as printed, the last 'r' value wins (a dict's).
    out = ["procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----\n",
           " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st xyz r\n"]
    for s in range(12):
        out.append(f" {s % 3}  0      0 {500000 + s} 10000 200000    0    0     0    12  100  200  1  2 97  0  0 {7 * s} {s}\n")
    return "".join(out)


def _vmstat_long(rows: int) -> str:
    """A `vmstat -t 1` log of ``rows`` rows, repeated from a real capture: many blocks of one shape."""
    text = (FIXTURES / "captures" / "nginx-proxy-buffers" / "default" / "run1" / "vmstat.txt").read_text()
    lines = text.splitlines(keepends=True)
    data = [ln for ln in lines if ln.split() and ln.split()[0].isdigit()]
    head = lines[: lines.index(data[0])]
    return "".join(head) + "".join(data[i % len(data)] for i in range(rows))


def _pidstat_shapes() -> str:
    # -u and -w tables of the same processes at the same seconds (two record shapes per process, the same
    # metric in neither), a thread row, '-' cells, a non-number, a midnight rollover, an Average block.
    banner = "Linux 6.1.0-13-amd64 (host) \t11/22/2026 \t_x86_64_\t(2 CPU)\n\n"
    out = [banner]
    for i, clock in enumerate(("23:59:58", "23:59:59", "00:00:00", "00:00:01")):
        out.append(f"{clock}      UID       PID    %usr %system  %guest   %wait    %CPU   CPU  Command\n")
        out.append(f"{clock}        0       794    {i}.00    2.00    0.00    0.00    {i + 2}.00     1  nginx\n")
        out.append(f"{clock}       33       795    1.50    -       0.00    0.00    1.50     0  nginx\n")
        out.append("\n")
        out.append(f"{clock}      UID       PID   cswch/s nvcswch/s  Command\n")
        out.append(f"{clock}        0       794     {10 + i}.00      3.00  nginx\n")
        out.append(f"{clock}       33       795     abc      3.00  nginx\n")
        out.append("\n")
    out.append("Average:      UID       PID    %usr %system  %guest   %wait    %CPU   CPU  Command\n")
    out.append("Average:        0       794    1.50    2.00    0.00    0.00    3.50     -  nginx\n")
    return "".join(out)


def _netqtop_cut() -> str:
    # The last interval has no closing rule: the parser's finish() adds it (with a warning), after the lines.
    text = (FIXTURES / "netqtop" / "current_format.txt").read_text()
    return text.rstrip("\n").rsplit("\n", 1)[0] + "\n"


def cases() -> list[tuple[str, list[dict[str, str]]]]:
    """(case id, files of one import) for every streaming-kind fixture and the edge cases above."""
    out: list[tuple[str, list[dict[str, str]]]] = []
    for folder in STREAMING_DIRS:
        for path in sorted((FIXTURES / folder).glob("*.txt")):
            text = path.read_text(encoding="utf-8")
            out.append((f"{folder}/{path.name}", [{"name": path.name, "content": text, "kind": folder}]))
            out.append((f"{folder}/{path.name} auto", [{"name": path.name, "content": text}]))
    for path in sorted((FIXTURES / "captures").glob("*/*/run*/*.txt")):
        if path.name in ("vmstat.txt", "pidstat.txt"):
            rel = path.relative_to(FIXTURES).as_posix()
            out.append((rel, [{"name": path.name, "content": path.read_text(), "role": "proxy"}]))
    run1 = FIXTURES / "captures" / "nginx-proxy-buffers" / "default" / "run1"
    out.append(("captures default run1, all files", [
        {"name": p.name, "content": p.read_text(), "role": "proxy" if p.name != "wrk.txt" else None}
        for p in sorted(run1.glob("*.txt"))]))
    for path in sorted((FIXTURES / "findings").glob("*/pidstat*.txt")):
        out.append((path.relative_to(FIXTURES).as_posix(), [{"name": path.name, "content": path.read_text()}]))
    for path in sorted((FIXTURES / "transcripts").glob("*.txt")):
        out.append((path.relative_to(FIXTURES).as_posix(), [{"name": path.name, "content": path.read_text()}]))
    for path in sorted((FIXTURES / "refused").glob("*vmstat*.txt")):
        out.append((path.relative_to(FIXTURES).as_posix(),
                    [{"name": path.name, "content": path.read_text(), "kind": "vmstat"}]))
    vm = (FIXTURES / "vmstat" / "procps-ng-4.0.2_t.txt").read_text()
    out += [
        ("vmstat edges", [{"name": "edges.txt", "content": _vmstat_edges(), "kind": "vmstat"}]),
        ("vmstat edges auto", [{"name": "edges.txt", "content": _vmstat_edges()}]),
        ("vmstat duplicate labels", [{"name": "dup.txt", "content": _vmstat_duplicate_labels(), "kind": "vmstat"}]),
        ("vmstat 3000 rows", [{"name": "long.txt", "content": _vmstat_long(3000)}]),
        ("vmstat CRLF", [{"name": "crlf.txt", "content": vm.replace("\n", "\r\n")}]),
        ("vmstat without final newline", [{"name": "nonl.txt", "content": vm.rstrip("\n")}]),
        ("vmstat base64 gzip", [{"name": "vm.txt.gz", "encoding": "base64", "kind": "vmstat",
                                 "content": base64.b64encode(gzip.compress(vm.encode(), mtime=0)).decode()}]),
        ("vmstat base64 text", [{"name": "vm.txt", "encoding": "base64",
                                 "content": base64.b64encode(vm.encode()).decode()}]),
        ("vmstat non-ascii", [{"name": "u.txt", "kind": "vmstat", "content": vm + "températures élevées ٣\n"}]),
        ("vmstat header only", [{"name": "h.txt", "kind": "vmstat", "content": "".join(vm.splitlines(True)[:2])}]),
        ("vmstat two files", [{"name": "a.txt", "content": vm, "role": "proxy"},
                              {"name": "b.txt", "content": _vmstat_long(50), "role": "upstream"}]),
        ("pidstat shapes", [{"name": "p.txt", "content": _pidstat_shapes(), "kind": "pidstat"}]),
        ("pidstat shapes auto", [{"name": "p.txt", "content": _pidstat_shapes()}]),
        ("netqtop cut off", [{"name": "n.txt", "content": _netqtop_cut(), "kind": "netqtop"}]),
        ("empty vmstat", [{"name": "e.txt", "content": "\n\n", "kind": "vmstat"}]),
    ]
    return out


# -- running one case -------------------------------------------------------------------------------------


@contextmanager
def frozen_now() -> Iterator[None]:
    """The import time is FROZEN_NOW (imports.service reads it with datetime.now(UTC))."""
    from perflab.imports import service

    class Frozen(datetime):
        @classmethod
        def now(cls, tz: Any = None) -> Frozen:  # type: ignore[override]
            return cls.fromtimestamp(FROZEN_NOW.timestamp(), tz)

    saved = service.datetime  # type: ignore[attr-defined]
    service.datetime = Frozen  # type: ignore[attr-defined,misc]
    try:
        yield
    finally:
        service.datetime = saved  # type: ignore[attr-defined]


def _body(tmp: Path, payload: dict[str, Any]) -> str:
    path = tmp / f"body-{uuid.uuid4().hex}.json"
    path.write_text(json.dumps(payload))
    return str(path)


def run_case(case: str, files: list[dict[str, str]], project_id: int, tmp: Path) -> dict[str, Any]:
    """Preview and import one case through the parser process's job (in this process); what was stored."""
    from perflab.imports import job

    clean = [{k: v for k, v in f.items() if v is not None} for f in files]
    try:
        preview: Any = job.preview_job(path=_body(tmp, {"files": clean}))
    except Exception as exc:  # noqa: BLE001 - a refusal is part of what is compared
        preview = {"refused": type(exc).__name__, "detail": str(exc)}
    with frozen_now():
        try:
            answer = job.import_job(path=_body(tmp, {"experiment": case, "label": "l", "files": clean}),
                                    project_id=project_id)
        except Exception as exc:  # noqa: BLE001
            return {"preview": preview, "refused": type(exc).__name__, "detail": str(exc)}
    return {"preview": _strip_ids(preview), "answer": _strip_ids(answer["files"]),
            "stored": snapshot(uuid.UUID(str(answer["run_id"])))}


def _strip_ids(files: Any) -> Any:
    if not isinstance(files, list):
        return files
    return [{k: (v is not None) if k == "attachment_id" else v for k, v in f.items()} for f in files]


def _rows(session: Any, sql: str, **params: Any) -> list[dict[str, Any]]:
    from sqlalchemy import text

    return [dict(r._mapping) for r in session.execute(text(sql), params)]


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode()


def snapshot(run_id: uuid.UUID) -> dict[str, Any]:
    """Everything stored for an imported run, ids replaced by what they point at; JSON columns as their
    text (5 and 5.0 differ)."""
    from perflab.db import new_session
    from perflab.series import codec

    s = new_session()
    try:
        run = _rows(s, "SELECT label, status, status_reasons::text AS reasons, source, started_at, ended_at,"
                       " headline::text AS headline FROM run WHERE id = :r", r=run_id)[0]
        run["started_at"] = run["started_at"].isoformat()
        run["ended_at"] = run["ended_at"].isoformat()
        streams = _rows(s, "SELECT id, agent_id, role, source, name, lines, samples, dropped, max_seq, parsed_seq,"
                           " closed_seq, chunks, state, error,"
                           # The generation of the stream's series ids is random (ingest/store.py): its presence
                           # is compared, not its value.
                           " (CASE WHEN parser_state ? 'series_epoch' THEN jsonb_set(parser_state, '{series_epoch}',"
                           " '\"*\"') ELSE parser_state END)::text AS parser_state FROM stream"
                           " WHERE run_id = :r ORDER BY id", r=run_id)
        names = {st.pop("id"): st["name"] for st in streams}
        raw = []
        for r in _rows(s, "SELECT stream_id, seq, line_count, data_gz FROM raw_chunk WHERE run_id = :r"
                          " ORDER BY stream_id, seq", r=run_id):
            decoded = json.loads(gzip.decompress(r["data_gz"]))
            raw.append({"stream": names[r["stream_id"]], "seq": r["seq"], "line_count": r["line_count"],
                        "entries": len(decoded), "times": [e[0] for e in decoded], "mono": sorted({e[1] for e in decoded}),
                        "lines_sha256": hashlib.sha256(json.dumps([e[2] for e in decoded]).encode()).hexdigest()})
        series = _rows(s, "SELECT id, stream_id, role, source, metric, key, labels::text AS labels, unit, points,"
                          " stats::text AS stats FROM series WHERE run_id = :r ORDER BY id", r=run_id)
        keys = {}
        for row in series:
            keys[row.pop("id")] = (names[row["stream_id"]], row["key"])
            row["stream"] = names[row.pop("stream_id")]
        chunks = []
        for c in _rows(s, "SELECT series_id, chunk, n, t0, t1, step_us, times, vals FROM series_chunk"
                          " WHERE run_id = :r ORDER BY series_id, chunk", r=run_id):
            chunks.append({"series": list(keys[c["series_id"]]), "chunk": c["chunk"], "n": c["n"],
                           "t0": codec.to_us(c["t0"]), "t1": codec.to_us(c["t1"]), "step_us": c["step_us"],
                           "times": _b64(c["times"]), "vals": _b64(c["vals"])})
        blocks = [{"stream": names[b["stream_id"]], "block": b["block"], "n": b["n"], "data": _b64(b["data"])}
                  for b in _rows(s, "SELECT stream_id, block, n, data FROM series_block WHERE run_id = :r"
                                    " ORDER BY stream_id, block", r=run_id)]
        summaries = _rows(s, "SELECT stream_id, role, kind, data::text AS data, warnings::text AS warnings"
                             " FROM summary WHERE run_id = :r ORDER BY id", r=run_id)
        for row in summaries:
            row["stream"] = names.get(row.pop("stream_id"))
        artifacts = _rows(s, "SELECT role, kind, name, content_type, size_bytes, sha256, note,"
                             " parsed::text AS parsed FROM artifact WHERE run_id = :r ORDER BY id", r=run_id)
    finally:
        s.close()
    return {"run": run, "streams": streams, "raw_chunks": raw, "series": series, "chunks": chunks,
            "blocks": blocks, "summaries": summaries, "artifacts": artifacts}


def run_all(project_id: int, tmp: Path, only: Callable[[str], bool] = lambda _: True) -> dict[str, Any]:
    return {case: run_case(case, files, project_id, tmp) for case, files in cases() if only(case)}


def main() -> None:
    """Write stream_expected.json.gz from this checkout's code, on a database of its own."""
    import os
    import tempfile

    sys.path[:0] = [str(ROOT), str(ROOT / "backend")]
    from bench.common import bench_database

    with bench_database("stream_expected") as url, tempfile.TemporaryDirectory() as tmp:
        os.environ["PERFLAB_DATABASE_URL"] = url
        os.environ["PERFLAB_HOME"] = tmp
        from perflab import db
        from perflab.cli import migrate
        from perflab.projects import service as projects

        migrate(url)
        db.set_engine(db.make_engine(url))
        with db.unit_of_work() as s:
            project_id = projects.create_project(s, name="streams", slug="streams").id
        out = run_all(project_id, Path(tmp))
        db.get_engine().dispose()
    EXPECTED.write_bytes(gzip.compress(json.dumps(out, indent=0, sort_keys=True).encode(), mtime=0))
    print(f"{EXPECTED}: {len(out)} cases, {EXPECTED.stat().st_size} bytes")


if __name__ == "__main__":
    main()
