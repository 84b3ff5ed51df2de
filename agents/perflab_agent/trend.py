"""`perflab-agent trend --project P --metric KEY [--format table|json]`: one metric across a project's
experiments in time order, with the change points the server found (see the README's "Trends")."""

import json
import sys
import time
from urllib.parse import quote

from perflab_agent.transport import NetworkError
from perflab_agent.util import log

CALL_DEADLINE_S = 120.0


def summarize(doc):
    """The server's trend reduced to what scripts need: per experiment and per change point."""
    return {
        "metric": doc.get("metric"),
        "label": doc.get("label"),
        "unit": doc.get("unit"),
        "experiments": [
            {"experiment": e.get("experiment"), "experiment_id": e.get("experiment_id"), "at": e.get("at"),
             "median": e.get("median"), "n": e.get("n"), "n_invalid": e.get("n_invalid"), "min": e.get("min"),
             "max": e.get("max"), "change_point": e.get("change_point", False)}
            for e in doc.get("experiments") or []
        ],
        "change_points": [
            {"experiment": c.get("experiment"), "previous_experiment": c.get("previous_experiment"),
             "delta_pct": c.get("delta_pct"), "before_median": c.get("before_median"),
             "after_median": c.get("after_median"), "p_value": c.get("p_value")}
            for c in doc.get("change_points") or []
        ],
        "method": doc.get("method"),
        # changed | no_change | too_short, and the sentence saying what this history can and cannot show
        "assessment": doc.get("assessment"),
        "detectable_step_pct": doc.get("detectable_step_pct"),
        "summary": doc.get("summary"),
    }


def _num(value):
    if value is None:
        return "-"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def render_table(out):
    rows = [["experiment", "median", "runs", ""]]
    for e in out["experiments"]:
        runs = str(e["n"]) + (" (+{} invalid)".format(e["n_invalid"]) if e.get("n_invalid") else "")
        rows.append([e["experiment"] or "?", _num(e["median"]), runs, "<- change" if e["change_point"] else ""])
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    text = "{} ({})\n".format(out["metric"], out.get("unit") or "") + "\n".join(lines) + "\n"
    if not out["change_points"]:
        return text + (out.get("summary") or "no change points") + "\n"
    for c in out["change_points"]:
        delta = "{:+.1f}%".format(c["delta_pct"]) if c["delta_pct"] is not None else "?"
        text += "change point at {}: {} -> {} ({}, p={:.3f})\n".format(
            c["experiment"], _num(c["before_median"]), _num(c["after_median"]), delta, c["p_value"])
    return text


def _query(args):
    query = {"metric": args.metric}
    if getattr(args, "alpha", None) is not None:
        query["alpha"] = repr(args.alpha)
    return query


def trend(client, args):
    try:
        resp = client.call("GET", "/api/projects/{}/trend".format(quote(args.project, safe="")),
                           query=_query(args), deadline=time.monotonic() + CALL_DEADLINE_S,
                           what="trend")
    except NetworkError as e:
        log.error("trend failed: %s", e)
        return 1
    if not resp.ok:
        log.error("trend refused: %s", resp.detail())
        return 1
    doc = resp.json()
    if not isinstance(doc, dict):
        log.error("trend: the server's answer is not a JSON object")
        return 1
    out = summarize(doc)
    if args.format == "json":
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(render_table(out))
    return 0
