"""`perflab profile show PROFILE_ID [--json]`: unit, total, frames, lossy, top functions.
`perflab profile derive`: build the stored call tree of profiles uploaded before trees were stored."""

from __future__ import annotations

import argparse
import json
from typing import Any

TOP = 20


def _fmt(value: int, total: int) -> str:
    share = 100 * value / total if total else 0.0
    return f"{value:>16,} {share:6.2f}%"


def _show(args: argparse.Namespace) -> int:
    from perflab.db import unit_of_work
    from perflab.profiles import service

    with unit_of_work() as db:
        row = service.get_profile(db, profile_id=service.parse_profile_id(args.profile_id))
        ctx = service.context(db, profile=row)
        by_total = service.functions(db, profile=row, limit=TOP)
        by_self = service.top_by_self(db, profile=row, limit=TOP)
        out: dict[str, Any] = {
            "profile_id": str(row.id),
            "run_id": str(row.run_id),
            "experiment": ctx["experiment_name"],
            "name": row.name,
            "role": row.role,
            "format": row.format,
            "unit": row.unit,
            "event": row.event,
            "total": row.total,
            "frames": row.frames,
            "stacks": row.stacks,
            "lossy": row.lossy,
            "tolerance": row.tolerance,
            "warnings": list(row.warnings),
            "top_by_self": [{"name": f.name, "self": f.self_value, "total": f.total_value} for f in by_self],
            "top_by_total": [{"name": f.name, "self": f.self_value, "total": f.total_value} for f in by_total],
        }
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    lossy = f"yes (frames under {100 * (out['tolerance'] or 0):.4f}% of the total may be missing)" if out["lossy"] else "no"
    print(f"profile {out['profile_id']}  {out['name']}  ({out['format']}, role {out['role'] or '-'})")
    print(f"  run {out['run_id']}  experiment {out['experiment'] or '-'}")
    print(f"  unit: {out['unit']}" + (f"  event: {out['event']}" if out["event"] else ""))
    print(f"  total: {out['total']:,} {out['unit']}  frames: {out['frames']:,}  stacks: {out['stacks']:,}  lossy: {lossy}")
    for warning in out["warnings"]:
        print(f"  ! {warning}")
    total = out["total"]
    for title, key, rows in (("self", "self", out["top_by_self"]), ("total", "total", out["top_by_total"])):
        print(f"\n  top {len(rows)} functions by {title}:")
        for f in rows:
            print(f"  {_fmt(f[key], total)}  {f['name']}")
    return 0


def _derive(args: argparse.Namespace) -> int:
    from perflab.db import unit_of_work
    from perflab.profiles import service

    with unit_of_work() as db:
        built = service.derive_missing(db, limit=args.limit)
    print(f"built the call tree of {built} profile{'s' if built != 1 else ''}")
    return 0


def register(sub: Any) -> None:
    profile = sub.add_parser("profile", help="inspect stored profiles").add_subparsers(
        dest="profile_command", required=True
    )
    s = profile.add_parser("show", help="unit, total, frames and the top functions of a profile")
    s.add_argument("profile_id")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=_show)
    d = profile.add_parser(
        "derive", help="store the call tree of profiles uploaded before it was stored (else built on first view)")
    d.add_argument("--limit", type=int, default=None, help="at most this many profiles")
    d.set_defaults(func=_derive)
