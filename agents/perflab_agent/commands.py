"""The one-shot commands: `upload` (profiles and files to a run), `import` (existing tool output as a new
run) and `compare` (experiments against a baseline, as a table, Markdown or JSON)."""

import base64
import collections
import json
import os
import sys
import time

from perflab_agent.alerts import report_gate_failure
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
            if args.unit:
                query["unit"] = args.unit
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
            # e.g. counts that look like nanosecond periods uploaded as samples: said at upload time.
            for warning in doc.get("warnings") or []:
                sys.stderr.write(f"{path}: warning: {warning}\n")
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
    entries = [e for e in doc.get("files") or [] if isinstance(e, dict)]
    per_name = collections.Counter(e.get("name") for e in entries)
    split = {name for name, n in per_name.items() if n > 1}
    for entry in entries:
        where = entry.get("name")
        if where in split:
            where = "{} (lines {}-{})".format(where, entry.get("start_line"), entry.get("end_line"))
        if entry.get("attachment") and entry.get("note"):
            # Kept unread as an attachment of the run: the server's note, as the Import page shows it.
            sys.stderr.write("{}: {}\n".format(where, entry["note"]))
        elif where != entry.get("name"):
            # A file holding several tools' outputs: say what was found where.
            sys.stderr.write("{}: {}{}\n".format(where, entry.get("kind") or "not recognised",
                                                  "" if entry.get("imported", True) else ", not imported"))
        for warning in entry.get("warnings") or []:
            sys.stderr.write(f"{where}: {warning}\n")
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


VERDICT_SYMBOLS = {"better": "✅ better", "worse": "❌ worse", "equivalent": "≈ equivalent",
                   "not_decided": "? not decided", "increased": "up", "decreased": "down",
                   "invalid": "no valid run", "no_data": "no data"}


def _write(text):
    """stdout, with the verdict symbols spelled in ASCII where the terminal cannot show them (Python 3.6
    under LANG=C writes ASCII only)."""
    try:
        sys.stdout.write(text)
    except UnicodeEncodeError:
        for symbol, plain in (("✅ ", ""), ("❌ ", ""), ("≈ ", "~"), ("±", "+-")):
            text = text.replace(symbol, plain)
        sys.stdout.write(text.encode("ascii", "replace").decode("ascii"))


def undecided_note(metric, experiment, baseline):
    """What would decide a not-decided cell: "3 vs 3 runs detect about ±9.8%; ~14 more runs a side would decide"."""
    runs = metric.get("runs") or {}
    detect = (metric.get("detectable_pct") or {}).get(experiment)
    need = (metric.get("runs_needed") or {}).get(experiment)
    if detect is None:
        return (metric.get("undecided_reason") or {}).get(experiment) or ""
    text = "{} vs {} runs detect about ±{:.1f}%".format(runs.get(baseline, "?"), runs.get(experiment, "?"), detect)
    if need is not None:
        text += "; ~{} more run{} a side would decide".format(need, "" if need == 1 else "s")
    return text


def _cell(metric, experiment, baseline):
    value = format_value((metric.get("values") or {}).get(experiment))
    verdict = (metric.get("verdict") or {}).get(experiment)
    if verdict == "invalid":
        return VERDICT_SYMBOLS["invalid"]
    if experiment == baseline:
        return value
    delta = (metric.get("delta_pct") or {}).get(experiment)
    extra = []
    if delta is not None:
        extra.append(f"{delta:+.1f}%")
    if verdict:
        word = VERDICT_SYMBOLS.get(verdict, verdict.replace("_", " "))
        note = undecided_note(metric, experiment, baseline) if verdict == "not_decided" else ""
        extra.append(word + (f" ({note})" if note else ""))
    return value + (" " + ", ".join(extra) if extra else "")


def _run_counts(doc):
    """Per experiment: (runs counted, invalid runs left out), from the columns when the server sends them."""
    counts = {}
    for column in doc.get("columns") or []:
        runs = column.get("runs") or []
        counts[column.get("name")] = (sum(1 for r in runs if r.get("included", True)),
                                      sum(1 for r in runs if not r.get("included", True)))
    if not counts:
        for metric in doc.get("metrics") or []:
            for name, n in (metric.get("runs") or {}).items():
                counts[name] = (max(n, counts.get(name, (0, 0))[0]), 0)
    return counts


def column_header(name, baseline, counts):
    """`direct (baseline, 3 runs)`, and the invalid runs left out when there are any."""
    parts = ["baseline"] if name == baseline else []
    if name in counts:
        n, invalid = counts[name]
        parts.append("{} run{}".format(n, "" if n == 1 else "s"))
        if invalid:
            parts.append(f"{invalid} invalid left out")
    return f"{name} ({', '.join(parts)})" if parts else name


def compare_rows(doc):
    """Header and rows of the comparison: a metric per row, an experiment per column."""
    baseline = doc.get("baseline")
    experiments = doc.get("experiments") or []
    counts = _run_counts(doc)
    header = ["metric"] + [column_header(e, baseline, counts) for e in experiments]
    rows = []
    for metric in doc.get("metrics") or []:
        arrow = {"higher_is_better": " (higher is better)", "lower_is_better": " (lower is better)"}
        rows.append([metric.get("key", "?") + arrow.get(metric.get("direction"), "")]
                    + [_cell(metric, e, baseline) for e in experiments])
    return header, rows


DEFAULT_GATE_METRICS = ("wrk.requests_per_sec", "wrk.latency_percentiles_ms.99")


# Exit codes of `compare --fail-on` (README, "CI gate"): 3 only on a decided "worse"; 4 when a chosen metric
# was not judged (no run, only running runs, no valid run, one run: no noise estimate), or not decided and
# `undecided` is in --fail-on; 2 for a metric the comparison does not have.
EXIT_WORSE = 3
EXIT_UNDECIDED = 4
FAIL_ON = ("worse", "undecided")


def gate(doc, metrics):
    """(worse, unjudged, undecided, problems) of the CI gate for each chosen metric of each non-baseline
    experiment: decided worse; not judged at all (nothing to decide from); measured but not decided; and
    chosen metrics the comparison does not have."""
    by_key = {m.get("key"): m for m in doc.get("metrics") or []}
    baseline = doc.get("baseline")
    worse, unjudged, undecided, problems = [], [], [], []
    for wanted in metrics or DEFAULT_GATE_METRICS:
        key = wanted if wanted in by_key else "wrk." + wanted
        metric = by_key.get(key)
        if metric is None:
            problems.append("no metric {!r} in this comparison (it has: {})".format(
                wanted, ", ".join(sorted(k for k in by_key if k)) or "none"))
            continue
        runs = metric.get("runs") or {}
        for exp in doc.get("experiments") or []:
            if exp == baseline:
                continue
            verdict = (metric.get("verdict") or {}).get(exp)
            n, n_base = runs.get(exp) or 0, runs.get(baseline) or 0
            delta = (metric.get("delta_pct") or {}).get(exp)
            change = "n/a" if delta is None else f"{delta:+.1f}%"
            if verdict == "worse":
                worse.append(f"{exp}: {key} is worse than {baseline} ({change}, {n} runs vs {n_base})")
            elif verdict == "invalid":
                # Every run of the candidate was invalid (errors, no requests): it was not measured, and a
                # gate that let it through would pass a change that breaks the service.
                unjudged.append(f"{exp}: {key} not judged: no valid run (every run had errors or no requests)")
            elif n == 0 or n_base == 0 or verdict == "no_data":
                unjudged.append(f"{exp}: {key} not judged: no finished run with this metric ({n} runs vs {n_base})")
            elif n < 2 or n_base < 2:
                unjudged.append(f"{exp}: {key} not judged: one run gives no noise estimate ({change}, {n} runs vs {n_base}); "
                                "run 2 or more a side")
            elif verdict == "not_decided":
                undecided.append(f"{exp}: {key} not decided ({change}): {undecided_note(metric, exp, baseline)}")
    return worse, unjudged, undecided, problems


def gate_exit(worse, unjudged, undecided, fail_on):
    if worse and "worse" in fail_on:
        return EXIT_WORSE
    if unjudged or (undecided and "undecided" in fail_on):
        return EXIT_UNDECIDED
    return 0


def gate_markdown(worse, unjudged, undecided, code):
    state = {0: "passed", EXIT_WORSE: "failed: worse", EXIT_UNDECIDED: "failed: not decided"}.get(code, "failed")
    out = ["", f"**CI gate {state}** (exit {code})"]
    out += [f"- ❌ {line}" for line in worse]
    out += [f"- ? {line}" for line in unjudged + undecided]
    return out


def findings_lines(doc):
    """One line per finding of each experiment (the server's rules), with the knob it suggests."""
    out = []
    for entry in doc.get("findings") or []:
        for f in entry.get("findings") or []:
            s = f.get("suggestion")
            knob = f" -> {s.get('knob')}: {s.get('from')} -> {s.get('to')}" if s else ""
            out.append(f"{entry.get('experiment')}: [{f.get('severity')}] {f.get('title')}{knob}")
    return out


def render_table(doc, extra=()):
    header, rows = compare_rows(doc)
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in [header] + rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    found = findings_lines(doc)
    if found:
        lines += ["", "findings:"] + ["  " + line for line in found]
    return "\n".join(lines + list(extra)) + "\n"


def render_markdown(doc, extra=()):
    header, rows = compare_rows(doc)

    def line(cells):
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    out = [line(header), "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    out.extend(line(row) for row in rows)
    found = findings_lines(doc)
    if found:
        out += ["", "Findings:"] + ["- " + f for f in found]
    return "\n".join(out + list(extra)) + "\n"


def compare(client, args):
    """Print the comparison; with --fail-on, the CI gate's exit code (EXIT_WORSE, EXIT_UNDECIDED)."""
    query = {"baseline": args.baseline, "experiments": list(args.experiments)}
    if args.include_invalid:
        query["include_invalid"] = "true"
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
    fail_on = args.fail_on or ()
    worse, unjudged, undecided, problems = gate(doc, args.metric) if fail_on else ([], [], [], [])
    code = gate_exit(worse, unjudged, undecided, fail_on)
    summary = gate_markdown(worse, unjudged, undecided, code) if fail_on and not problems else []
    if args.format == "json":
        _print_json(doc)
    elif args.format == "markdown":
        _write(render_markdown(doc, summary))
    else:
        _write(render_table(doc, [s.replace("**", "") for s in summary]))
    if not fail_on:
        return 0
    for problem in problems:
        log.error("compare --fail-on: %s", problem)
    if problems:
        return 2
    for line in worse:
        sys.stderr.write(f"FAIL {line}\n")
    for line in unjudged:
        sys.stderr.write(f"NOT JUDGED {line}\n")
    for line in undecided:
        sys.stderr.write("{} {}\n".format("FAIL" if "undecided" in fail_on else "NOT DECIDED", line))
    if code != 0:  # the project's gate_failed webhooks (alerts.py)
        failed = worse + unjudged + (undecided if "undecided" in fail_on else [])
        report_gate_failure(client, args.project, args.baseline, args.experiments, failed, code)
    return code
