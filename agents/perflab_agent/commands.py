"""The one-shot commands: `upload` (profiles and files to a run), `import` (existing tool output as a new
run) and `compare` (experiments against a baseline, as a table, Markdown or JSON)."""

import base64
import json
import os
import sys
import time

from perflab_agent.transport import NetworkError
from perflab_agent.util import log, redactor

CALL_DEADLINE_S = 120.0
GZIP_MAGIC = b"\x1f\x8b"


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _print_json(doc):
    sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def _post_bytes(client, path, query, data):
    """POST a file's bytes. Already-gzipped files go as they are (the server reads .gz uploads);
    others are gzip-encoded on the wire when large."""
    if data[:2] != GZIP_MAGIC:
        data = redactor.data(data)
    return client.call("POST", path, query=query, data=data, content_type="application/octet-stream",
                       compress=None if data[:2] != GZIP_MAGIC else False,
                       deadline=time.monotonic() + CALL_DEADLINE_S, what="upload")


def upload(client, args):
    """Attach flame graphs (profile endpoint) and files (artifact endpoint) to an existing run."""
    failures = 0
    jobs = [("profile", p) for p in args.flamegraph] + [("file", p) for p in args.file]
    for kind, path in jobs:
        name = os.path.basename(path)
        try:
            data = _read(path)
        except OSError as e:
            log.error("%s: %s", path, e.strerror or e)
            failures += 1
            continue
        if kind == "profile":
            endpoint, query = f"/api/runs/{args.run}/profiles", {"role": args.role, "name": name}
        else:
            endpoint, query = (f"/api/agent/runs/{args.run}/artifacts",
                               {"kind": args.kind, "name": name, "role": args.role})
        try:
            resp = _post_bytes(client, endpoint, query, data)
        except NetworkError as e:
            log.error("%s: %s", path, e)
            failures += 1
            continue
        if not resp.ok:
            log.error("%s: %s", path, resp.detail())
            failures += 1
            continue
        doc = resp.json() or {}
        if args.json:
            _print_json(doc)
        elif kind == "profile":
            print("{}: profile {} ({}, {} {} in {} frames{})".format(
                path, doc.get("profile_id"), doc.get("format"), doc.get("total"), doc.get("unit"),
                doc.get("frames"), ", lossy" if doc.get("lossy") else ""))
        else:
            print("{}: artifact {} ({})".format(path, doc.get("artifact_id"), args.kind))
    return 1 if failures else 0


def import_body(experiment, label, paths):
    """The JSON of POST /api/projects/{project}/imports: UTF-8 text as is, anything else (gzip) in base64."""
    files = []
    for path in paths:
        data = _read(path)
        entry = {"name": os.path.basename(path)}
        try:
            if data[:2] == GZIP_MAGIC:
                raise UnicodeDecodeError("gzip", data[:2], 0, 2, "compressed")
            entry["content"] = redactor.text(data.decode("utf-8"))
        except UnicodeDecodeError:
            entry["content"] = base64.b64encode(data).decode("ascii")
            entry["encoding"] = "base64"
        files.append(entry)
    return {"experiment": experiment, "label": label or "", "files": files}


def import_files(client, args):
    try:
        body = import_body(args.experiment, args.run_label, args.files)
    except OSError as e:
        log.error("%s: %s", e.filename, e.strerror or e)
        return 1
    try:
        resp = client.call("POST", f"/api/projects/{args.project}/imports", json_body=body,
                           deadline=time.monotonic() + CALL_DEADLINE_S, what="import")
    except NetworkError as e:
        log.error("import failed: %s", e)
        return 1
    if not resp.ok:
        log.error("import refused: %s", resp.detail())
        return 1
    doc = resp.json() or {}
    if args.json:
        _print_json(doc)
        return 0
    print(doc.get("run_id"))
    if doc.get("duplicate"):
        sys.stderr.write("these files were imported before: that run is reused\n")
    for entry in doc.get("files") or []:
        if isinstance(entry, dict) and entry.get("warnings"):
            for warning in entry["warnings"]:
                sys.stderr.write("{}: {}\n".format(entry.get("name"), warning))
    return 0


# ---------------------------------------------------------------- compare


def format_value(value):
    if value is None:
        return "-"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int) or float(value).is_integer() and abs(value) >= 1000:
        return f"{int(value):,}"
    if abs(value) >= 100:
        return f"{value:.1f}"
    if abs(value) >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"


def _cell(metric, experiment, baseline):
    value = format_value((metric.get("values") or {}).get(experiment))
    runs = (metric.get("runs") or {}).get(experiment)
    if runs and runs > 1:
        value += f" (n={runs})"
    if experiment == baseline:
        return value
    delta = (metric.get("delta_pct") or {}).get(experiment)
    verdict = (metric.get("verdict") or {}).get(experiment)
    extra = []
    if delta is not None:
        extra.append(f"{delta:+.1f}%")
    if verdict:
        extra.append(verdict.replace("_", " "))
    return value + (" " + ", ".join(extra) if extra else "")


def compare_rows(doc):
    """Header and rows of the comparison: a metric per row, an experiment per column."""
    baseline = doc.get("baseline")
    experiments = doc.get("experiments") or []
    header = ["metric"] + [f"{e} (baseline)" if e == baseline else e for e in experiments]
    rows = []
    for metric in doc.get("metrics") or []:
        arrow = {"higher_is_better": " (higher is better)", "lower_is_better": " (lower is better)"}
        rows.append([metric.get("key", "?") + arrow.get(metric.get("direction"), "")]
                    + [_cell(metric, e, baseline) for e in experiments])
    return header, rows


def findings_lines(doc):
    """One line per finding of each experiment (the server's rules), with the knob it suggests."""
    out = []
    for entry in doc.get("findings") or []:
        for f in entry.get("findings") or []:
            s = f.get("suggestion")
            knob = f" -> {s.get('knob')}: {s.get('from')} -> {s.get('to')}" if s else ""
            out.append(f"{entry.get('experiment')}: [{f.get('severity')}] {f.get('title')}{knob}")
    return out


def render_table(doc):
    header, rows = compare_rows(doc)
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in [header] + rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    found = findings_lines(doc)
    if found:
        lines += ["", "findings:"] + ["  " + line for line in found]
    return "\n".join(lines) + "\n"


def render_markdown(doc):
    header, rows = compare_rows(doc)

    def line(cells):
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    out = [line(header), "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    out.extend(line(row) for row in rows)
    found = findings_lines(doc)
    if found:
        out += ["", "Findings:"] + ["- " + f for f in found]
    return "\n".join(out) + "\n"


def compare(client, args):
    query = {"baseline": args.baseline, "experiments": list(args.experiments)}
    try:
        resp = client.call("GET", f"/api/projects/{args.project}/compare", query=query,
                           deadline=time.monotonic() + CALL_DEADLINE_S, what="compare")
    except NetworkError as e:
        log.error("compare failed: %s", e)
        return 1
    if not resp.ok:
        log.error("compare refused: %s", resp.detail())
        return 1
    doc = resp.json()
    if not isinstance(doc, dict):
        log.error("compare: the server's answer is not a JSON object")
        return 1
    if args.format == "json":
        _print_json(doc)
    elif args.format == "markdown":
        sys.stdout.write(render_markdown(doc))
    else:
        sys.stdout.write(render_table(doc))
    return 0
