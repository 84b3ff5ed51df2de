"""A comparison as CSV (tidy, formula-neutralised), JSON, and GitHub Markdown for pull requests."""

from __future__ import annotations

import csv
import io
from typing import Any

from perflab import stats
from perflab.compare.schemas import Cell, CompareReply, SetupNoise
from perflab.compare.telemetry import per_request
from perflab.findings.markdown import comparison_findings

# A spreadsheet runs a text cell starting with one of these as a formula (RELIABILITY.md item 8).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\0")

CSV_HEADER = (
    "section", "role", "key", "label", "unit", "direction", "experiment", "is_baseline", "runs", "median", "min",
    "max", "delta_pct", "ci_low_pct", "ci_high_pct", "verdict", "noise_floor_pct", "flags",
    "undecided_reason", "detectable_pct", "runs_needed", "run_values", "outlier_runs", "two_mode",
)


def neutralise(value: Any) -> Any:
    """Numbers stay numbers; text that a spreadsheet would evaluate gets a leading apostrophe."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return value
    s = str(value)
    return "'" + s if s.startswith(FORMULA_START) else s


def _run_values(values: list[float | None]) -> str:
    """Each run's value in run order, `;`-separated (empty where a run lacks it)."""
    return ";".join("" if v is None else f"{v:g}" for v in values)


def _cell_fields(cell: Cell) -> list[Any]:
    return [cell.n, cell.median, cell.min, cell.max, cell.delta_pct, cell.ci_low_pct, cell.ci_high_pct, cell.verdict,
            cell.noise_floor_pct, " | ".join(cell.flags), cell.undecided_reason, cell.detectable_pct,
            cell.runs_needed, _run_values(cell.values), ";".join(str(i + 1) for i in cell.outliers), cell.two_mode]


def to_csv(reply: CompareReply) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(CSV_HEADER)
    base = reply.baseline

    def row(*values: Any) -> None:
        w.writerow([neutralise(v) for v in values])

    for r in reply.results:
        for name, cell in r.cells.items():
            row("results", "", r.key, r.label, r.unit, r.direction, name, name == base, *_cell_fields(cell))
    for t in reply.telemetry:
        for tr in t.rows:
            for name, cell in tr.cells.items():
                row("telemetry", t.role, tr.key, tr.label, tr.unit, tr.direction, name, name == base,
                    *_cell_fields(cell))
    for tr in reply.netqtop:
        for name, cell in tr.cells.items():
            row("netqtop", tr.role, tr.key, tr.label, tr.unit, tr.direction, name, name == base, *_cell_fields(cell))
    for table in reply.syscalls:
        for sr in table.rows:
            for name, sc in sr.cells.items():
                # Per request (what the verdicts compare), then the window's raw calls without a verdict.
                for what, unit in (("calls_per_request", "calls/req"), ("usecs_per_request", "us/req")):
                    row("syscalls", table.role, f"strace.{table.process}.{sr.syscall}.{what}",
                        f"{sr.syscall} {unit}", unit, "neutral", name, name == base, sc.n_per_request,
                        getattr(sc, what), None, None, getattr(sc, f"{what}_delta_pct"), None, None,
                        getattr(sc, f"{what}_verdict"), None, sc.per_request_note or "",
                        getattr(sc, f"{what}_undecided_reason"), getattr(sc, f"{what}_detectable_pct"),
                        getattr(sc, f"{what}_runs_needed"), "", "", "")
                row("syscalls", table.role, f"strace.{table.process}.{sr.syscall}.calls",
                    f"{sr.syscall} calls in the window", "calls", "neutral", name, name == base, sc.n, sc.calls,
                    None, None, None, None, None, "", None, "", None, None, None, "", "", "")
    return buf.getvalue()


# -- Markdown -------------------------------------------------------------------------------------------


def md_escape(text: str) -> str:
    """Table-safe and inert: pipes escaped, HTML brackets as entities, one line."""
    return (text.replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")
            .replace("\r", " ").replace("\n", " "))


def _bytes(v: float) -> str:
    for unit, size in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if abs(v) >= size:
            return f"{v / size:.2f}{unit}"
    return f"{v:.0f}B"


def fmt_value(v: float | None, unit: str) -> str:
    if v is None:
        return "-"
    if unit == "ms":
        return f"{v:.2f}ms"
    if unit == "B/s":
        return _bytes(v)
    if unit in ("requests", "responses", "errors"):
        return f"{v:.0f}"
    if unit == "%":
        return f"{v:.1f}%"
    return f"{v:.2f}"


def fmt_delta(pct: float | None) -> str:
    if pct is None:
        return "n/a"
    return f"{pct:+.0f}%" if abs(pct) >= 100 else f"{pct:+.1f}%"


VERDICT_WORDS = {
    "better": "✅ better", "worse": "❌ worse", "equivalent": "≈ equivalent", "not_decided": "? not decided",
    "increased": "up", "decreased": "down", "no_data": "no data", "invalid": "no valid run",
}


def undecided_text(cell: Cell, runs_base: int) -> str:
    """"3 vs 3 runs detect about ±8.1%; ~4 more a side would decide": what would decide a not-decided cell."""
    if cell.detectable_pct is None:
        return cell.undecided_reason or "not decided"
    text = f"{runs_base} vs {cell.n} runs detect about ±{cell.detectable_pct:.1f}%"
    if cell.runs_needed is not None:
        text += f"; ~{cell.runs_needed} more a side would decide"
    return text


def column_header(name: str, *, baseline: bool, runs: int, invalid: int) -> str:
    """``direct (baseline, 3 runs)``; invalid runs left out are said, not hidden."""
    parts = ["baseline"] if baseline else []
    parts.append(f"{runs} run{'s' if runs != 1 else ''}")
    if invalid:
        parts.append(f"{invalid} invalid left out")
    return f"{name} ({', '.join(parts)})"


def noise_markdown(noise: SetupNoise | None) -> str:
    """What the compare page's noise panel says, for the result metrics: the baseline's run-to-run spread and
    the smallest change 3, 5 and 10 runs a side detect, so a reviewer knows how many runs a retry needs."""
    rows = [r for r in noise.rows if r.section == "results" and r.detectable_pct is not None] if noise else []
    if noise is None or not rows:
        return ""
    out = (f"\nNoise of this setup ({md_escape(noise.experiment)}, {noise.runs} runs): the smallest change each run "
           f"count a side detects with 80% power at a {stats.ALPHA:.0%} false-positive rate.\n")
    for r in rows:
        spread = f"±{r.spread_pct:.1f}% run to run; " if r.spread_pct is not None else ""
        counts = ", ".join(f"{n} runs: {d:.1f}%" for n, d in sorted(r.detectable_by_runs.items()) if d is not None)
        out += f"- {md_escape(r.label)}: {spread}{counts}\n"
    return out


# Syscalls most changed first; a write-up needs the few that moved, the page has the rest.
MD_SYSCALL_ROWS = 8


def _syscalls_markdown(reply: CompareReply, names: list[str]) -> str:
    """Per strace -c table: calls per request of the most changed syscalls, the window's raw calls beside."""
    out = ""
    for table in reply.syscalls:
        out += (f"\nSyscalls per request, {md_escape(table.role)} · {md_escape(table.process)} (strace -c; calls/req, "
                "the window's calls in brackets):\n\n")
        out += "| syscall | " + " | ".join(md_escape(n) for n in names) + " |\n|---" + "|---:" * len(names) + "|\n"
        for sr in table.rows[:MD_SYSCALL_ROWS]:
            cells = [md_escape(sr.syscall)]
            for n in names:
                sc = sr.cells.get(n)
                if sc is None or not sc.n:
                    cells.append("-")
                    continue
                raw = f"{sc.calls or 0:,.0f} calls"
                if sc.calls_per_request is None:
                    cells.append(f"requests unknown ({raw})")
                    continue
                text = f"{per_request(sc.calls_per_request)} calls/req ({raw})"
                if n != reply.baseline:
                    verdict = sc.calls_per_request_verdict
                    text += f" {fmt_delta(sc.calls_per_request_delta_pct)} {VERDICT_WORDS.get(verdict, verdict)}"
                cells.append(text)
            out += "| " + " | ".join(cells) + " |\n"
    return out


def to_markdown(reply: CompareReply, *, link: str | None = None) -> str:
    counted = {c.name: sum(1 for r in c.runs if r.included) for c in reply.columns}
    left_out = {c.name: sum(1 for r in c.runs if not r.included) for c in reply.columns}
    names = reply.experiments
    head = ["metric"] + [md_escape(column_header(n, baseline=n == reply.baseline, runs=counted.get(n, 0),
                                                 invalid=left_out.get(n, 0))) for n in names]
    lines = ["| " + " | ".join(head) + " |", "|---" + "|---:" * len(names) + "|"]
    for r in reply.results:
        cells = [md_escape(r.label)]
        for n in names:
            c = r.cells[n]
            text = fmt_value(c.median, r.unit)
            if c.verdict == "invalid":
                text = VERDICT_WORDS["invalid"]
            elif n != reply.baseline and c.median is not None:
                why = f": {undecided_text(c, r.cells[reply.baseline].n)}" if c.verdict == "not_decided" else ""
                text += f" ({fmt_delta(c.delta_pct)}, {VERDICT_WORDS[c.verdict]}{why})"
            if c.flags:
                text += " ⚠"
            cells.append(text)
        lines.append("| " + " | ".join(cells) + " |")
    out = "\n".join(lines) + "\n\n"
    out += (f"Medians over the runs of each experiment, change against **{md_escape(reply.baseline)}**; verdicts from "
            f"{reply.method.name} at a {1 - reply.method.confidence:.0%} false-positive rate (not decided: these runs "
            f"cannot tell the change from noise; equivalent: provably inside the smallest meaningful change).\n")
    out += noise_markdown(reply.noise)
    if reply.validity.summary:
        out += "\n⚠ Flagged runs:\n" + "".join(f"- {md_escape(s)}\n" for s in reply.validity.summary[:10])
        if len(reply.validity.summary) > 10:
            out += f"- ... and {len(reply.validity.summary) - 10} more\n"
    knobs = [k for cs in reply.changes for k in cs.knob_changes]
    if knobs:
        out += "\nConfiguration changes:\n" + "".join(
            f"- {md_escape(cs.experiment)}: `{md_escape(k.knob)}` {md_escape(k.before)} -> {md_escape(k.after)}\n"
            for cs in reply.changes for k in cs.knob_changes
        )
    out += _syscalls_markdown(reply, names)
    out += comparison_findings(reply.findings)
    if link:
        out += f"\n[Open this comparison in perflab]({link})\n"
    return out
