"""`perflab run show RUN_ID [--json]` and `perflab reparse RUN_ID`."""

from __future__ import annotations

import argparse
import json
from typing import Any


def _show(args: argparse.Namespace) -> int:
    from sqlalchemy import select

    from perflab.db import unit_of_work
    from perflab.ingest import service as ingest_service
    from perflab.runs import service
    from perflab.runs.models import Series

    with unit_of_work() as db:
        run = service.get_run(db, run_id=service.parse_run_id(args.run_id))
        ingest_service.evaluate(db, run=run)
        d = service.run_detail(db, run=run)
        series_counts: dict[int, int] = {}
        for s in db.scalars(select(Series).where(Series.run_id == run.id)):
            series_counts[s.stream_id] = series_counts.get(s.stream_id, 0) + 1
        profiles: list[dict[str, Any]] = []
        try:
            from perflab.profiles import service as profiles_service

            profiles = [
                {"id": p.id, "role": p.role, "name": p.name, "format": p.format, "unit": p.unit, "total": p.total}
                for p in profiles_service.list_for_run(db, run_id=run.id)
            ]
        except ImportError:
            pass
        from perflab.findings import service as findings_service

        findings = findings_service.for_run(db, run=run, experiment=d["experiment_name"])
        from perflab.ingest import workers

        lag = workers.run_lag(db, run_id=run.id)
        out = {
            "run_id": str(run.id),
            "project": d["project_slug"],
            "experiment": d["experiment_name"],
            "status": run.status,
            "status_reasons": run.status_reasons,
            "started_at": run.started_at.isoformat() if run.started_at else None,
            "ended_at": run.ended_at.isoformat() if run.ended_at else None,
            "exit_code": run.exit_code,
            "load_command": run.load_command,
            "hosts": [{"hostname": h["hostname"], "role": h["role"], "state": h["state"]} for h in d["hosts"]],
            "streams": [
                {"host": s["host"], "role": s["stream"].role, "source": s["stream"].source,
                 "name": s["stream"].name, "lines": s["stream"].lines, "samples": s["stream"].samples,
                 "dropped": s["stream"].dropped, "series": series_counts.get(s["stream"].id, 0),
                 "state": s["stream"].state}
                for s in d["streams"]
            ],
            "summaries": {f"{s.role}/{s.kind}" if s.role else s.kind: s.data for s in d["summaries"]},
            "headline": run.headline,
            "profiles": profiles,
            "findings": findings,
            # Parse workers trail what was received: the streams' samples and the findings may lack the newest.
            "parse_lag": lag,
        }
    if args.json:
        print(json.dumps(out, indent=2, default=str))
        return 0
    print(f"run {out['run_id']}  {out['project']} / {out['experiment']}  status: {out['status']}")
    for reason in out["status_reasons"]:
        print(f"  ! {reason}")
    if lag["chunks"]:
        print(f"  parsing {lag['chunks']} batches behind (oldest received {lag['seconds']:.1f} s ago)")
    if out["load_command"]:
        print(f"  load: {out['load_command']} (exit {out['exit_code']})")
    h = out["headline"]
    if h.get("requests_per_sec") is not None:
        print(f"  {h['requests_per_sec']:.2f} req/s  p50 {h.get('latency_p50_ms')} ms  p99 {h.get('latency_p99_ms')} ms"
              f"  errors {h.get('errors', 0)}")
    print("  hosts: " + (", ".join(f"{x['hostname']} ({x['role']})" for x in out["hosts"]) or "none"))
    print(f"  {'role':<10} {'stream':<24} {'lines':>8} {'samples':>9} {'dropped':>8}  state")
    for s in out["streams"]:
        print(f"  {s['role']:<10} {s['name']:<24} {s['lines']:>8} {s['samples']:>9} {s['dropped']:>8}  {s['state']}")
    for p in out["profiles"]:
        print(f"  profile {p['id']}: {p['role']} {p['name']} ({p['format']}, {p['total']} {p['unit']})")
    print("  findings: " + ("none" if not findings else ""))
    for f in findings:
        knob = f"  -> {f['suggestion']['knob']}: {f['suggestion']['from']} -> {f['suggestion']['to']}" \
            if f["suggestion"] else ""
        print(f"  [{f['severity']}] {f['title']}{knob}")
        for e in f["evidence"]:
            print(f"      {e['label']}: {e['value']}")
    return 0


def _reparse(args: argparse.Namespace) -> int:
    from perflab.db import unit_of_work
    from perflab.ingest import service as ingest_service
    from perflab.runs import service

    with unit_of_work() as db:
        run = service.get_run(db, run_id=service.parse_run_id(args.run_id))
        counts = ingest_service.reparse_run(db, run=run)
    print(f"re-parsed {counts['streams']} streams of run {args.run_id}: {counts['samples']} samples")
    return 0


def register(sub: Any) -> None:
    run = sub.add_parser("run", help="inspect runs").add_subparsers(dest="run_command", required=True)
    s = run.add_parser("show", help="status, hosts, streams and summaries of a run")
    s.add_argument("run_id")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_show)
    s = sub.add_parser("reparse", help="re-parse a run from its stored raw lines")
    s.add_argument("run_id")
    s.set_defaults(func=_reparse)
