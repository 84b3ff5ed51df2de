"""`perflab-agent noise`: the noise of a setup from an experiment's repeated runs: per metric and host role,
"this setup detects changes of X% or more with n runs"."""

import json
import sys
import time
from urllib.parse import quote

from perflab_agent.transport import NetworkError
from perflab_agent.util import log

CALL_DEADLINE_S = 120.0


def render(doc):
    rows = doc.get("rows") or []
    counts = sorted({int(k) for r in rows for k in (r.get("detectable_by_runs") or {})})
    header = ["metric", "role", "runs", "run to run"] + [f"{n} runs" for n in counts]
    table = []
    for r in rows:
        by = {int(k): v for k, v in (r.get("detectable_by_runs") or {}).items()}
        spread = r.get("spread_pct")
        table.append([r.get("key", "?"), r.get("role") or "", str(r.get("n")),
                      "-" if spread is None else f"±{spread:.1f}%"]
                     + ["-" if by.get(n) is None else f"{by[n]:.1f}%" for n in counts])
    widths = [max(len(x[i]) for x in [header] + table) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in [header] + table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    rps = next((r for r in rows if r.get("key") == "wrk.requests_per_sec"), None)
    head = "{}: {} runs.".format(doc.get("experiment"), doc.get("runs"))
    if rps is not None and rps.get("detectable_pct") is not None:
        head += " This setup detects Requests/sec changes of {:.1f}% or more with {} runs a side.".format(
            rps["detectable_pct"], rps.get("n"))
    return head + "\nSmallest change detected (80% power, 5% false positives) with this many runs a side:\n" + \
        "\n".join(lines) + "\n"


def noise(client, args):
    try:
        resp = client.call("GET", "/api/projects/{}/noise".format(quote(args.project, safe="")),
                           query={"experiment": args.experiment}, deadline=time.monotonic() + CALL_DEADLINE_S,
                           what="noise")
    except NetworkError as e:
        log.error("noise failed: %s", e)
        return 1
    if not resp.ok:
        log.error("noise refused: %s", resp.detail())
        return 1
    doc = resp.json()
    if not isinstance(doc, dict):
        log.error("noise: the server's answer is not a JSON object")
        return 1
    if args.format == "json":
        sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")
    else:
        out = render(doc)
        try:
            sys.stdout.write(out)
        except UnicodeEncodeError:
            sys.stdout.write(out.replace("±", "+-"))
    return 0
