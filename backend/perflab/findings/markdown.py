"""Findings as GitHub Markdown: appended to a comparison's export and printed by `perflab run show`."""

from __future__ import annotations

from perflab.findings.schemas import ExperimentFindings, FindingRead

ICONS = {"critical": "⛔", "warning": "⚠", "info": "ℹ"}


def _escape(text: str) -> str:
    return text.replace("<", "&lt;").replace(">", "&gt;").replace("\r", " ").replace("\n", " ")


def finding_line(f: FindingRead) -> str:
    line = f"{ICONS[f.severity]} **{_escape(f.title)}**"
    if f.suggestion is not None:
        s = f.suggestion
        line += f" → `{_escape(s.knob)}` {_escape(s.from_)} → {_escape(s.to)}"
    if f.runs is not None and f.of_runs:
        line += f" ({f.runs} of {f.of_runs} runs)"
    evidence = "; ".join(f"{_escape(e.label)}: {_escape(e.value)}" for e in f.evidence[:4])
    return f"- {line}\n  <br>evidence: {evidence}\n" if evidence else f"- {line}\n"


def comparison_findings(experiments: list[ExperimentFindings]) -> str:
    """The Findings section of a comparison (empty when no rule fired anywhere)."""
    if not any(e.findings for e in experiments):
        return ""
    out = "\nFindings:\n"
    for i, e in enumerate(experiments):
        changed = ""
        if i > 0 and (e.appeared or e.disappeared):
            parts = ([f"appeared: {', '.join(e.appeared)}"] if e.appeared else []) + (
                [f"gone: {', '.join(e.disappeared)}"] if e.disappeared else [])
            changed = f" (against the baseline: {'; '.join(parts)})"
        if not e.findings:
            out += f"\n**{_escape(e.experiment)}**{changed}: no findings\n"
            continue
        out += f"\n**{_escape(e.experiment)}**{changed}\n" + "".join(finding_line(f) for f in e.findings)
    return out
