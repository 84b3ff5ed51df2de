"""Findings in a comparison: each experiment's findings merged over its runs, with the evidence of every
run they fired on (median and range, which runs), not the first run's numbers.

The rules (perflab.findings) judge one run at a time and write their figures into text ("13.9 calls
per recvfrom (5,800 recvfrom)"). Here the same finding from several runs is one finding: each number of
its title becomes the median over the runs it fired on, each number of its evidence "median (min-max)",
and an evidence line names the runs. Text whose wording differs between runs is listed per run.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from perflab import stats
from perflab.compare.selection import run_label
from perflab.findings.rules import SEVERITY_ORDER, Finding, evaluate
from perflab.findings.service import run_data_many
from perflab.runs.models import Run

_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
# A unit written right after a number ("85.4%", "12ms"): the range goes after it.
_UNIT = re.compile(r"^[%A-Za-z/]*")


def _parse(token: str) -> float:
    return float(token.replace(",", ""))


def _format_like(value: float, samples: list[str]) -> str:
    """A number written the way the rule wrote it: as many decimals, thousands separators if it used them."""
    decimals = max((len(s.split(".", 1)[1]) if "." in s else 0) for s in samples)
    if decimals == 0 and not float(value).is_integer():
        decimals = 1  # the median of two whole numbers (84, 89 -> 86.5)
    grouped = any("," in s for s in samples)
    return f"{value:,.{decimals}f}" if grouped else f"{value:.{decimals}f}"


def merge_text(texts: Sequence[str], *, ranges: bool) -> str | None:
    """One text for the same sentence from several runs: each number its median (and "(min-max)" when the runs
    differ and `ranges`); None when the wording itself differs between runs."""
    skeletons = {tuple(_NUMBER.split(t)) for t in texts}
    if len(skeletons) != 1:
        return None
    parts = list(next(iter(skeletons)))
    slots = [_NUMBER.findall(t) for t in texts]
    out = [parts[0]]
    for i in range(len(slots[0])):
        tokens = [s[i] for s in slots]
        values = [_parse(t) for t in tokens]
        med = stats.median(values)
        assert med is not None
        text = _format_like(med, tokens)
        lo, hi = min(values), max(values)
        after = parts[i + 1]
        if ranges and lo != hi:
            unit = _UNIT.match(after)
            cut = unit.end() if unit else 0
            text += f"{after[:cut]} (runs {_format_like(lo, tokens)}-{_format_like(hi, tokens)}{after[:cut]})"
            after = after[cut:]
        out += [text, after]
    return "".join(out)


def merge_findings(fired: list[tuple[str, Finding]], of_runs: int) -> Finding:
    """One finding from the same rule firing on several runs ((run label, finding) in run order)."""
    first = fired[0][1]
    labels = [label for label, _ in fired]
    merged: Finding = {**first, "runs": len(fired), "of_runs": of_runs}
    if len(fired) == 1:
        merged["evidence"] = [*first["evidence"], _runs_line(labels, of_runs)]
        return merged
    merged["title"] = merge_text([f["title"] for _, f in fired], ranges=False) or first["title"]
    # Evidence by (kind, label), in the order the rule wrote it; lines only some runs have keep their runs.
    order: list[tuple[str, str]] = []
    by_key: dict[tuple[str, str], list[tuple[str, dict[str, Any]]]] = {}
    for label, f in fired:
        seen: set[tuple[str, str]] = set()
        for ev in f["evidence"]:
            key = (ev["kind"], ev["label"])
            if key in seen:
                continue
            seen.add(key)
            if key not in by_key:
                order.append(key)
                by_key[key] = []
            by_key[key].append((label, ev))
    evidence = []
    for key in order:
        items = by_key[key]
        values = [ev["value"] for _, ev in items]
        text = merge_text(values, ranges=True)
        if text is None:
            text = "; ".join(f"{label}: {v}" for label, v in zip((lb for lb, _ in items), values, strict=True))
        elif len(items) < len(fired):
            text += f" ({', '.join(lb for lb, _ in items)})"
        evidence.append({**items[0][1], "value": text})
    merged["evidence"] = [*evidence, _runs_line(labels, of_runs)]
    return merged


def _runs_line(labels: list[str], of_runs: int) -> dict[str, Any]:
    return {"kind": "summary", "label": "fired on", "value": f"{', '.join(labels)} ({len(labels)} of {of_runs} runs)",
            "ref": {}}


def for_experiments(session: Session, *, experiments: Sequence[tuple[str, Sequence[Run]]],
                    frozen_at: datetime | None = None) -> list[dict[str, Any]]:
    """Per experiment (baseline first): its findings merged over its runs, and the rules that ``appeared``
    (fire here, not in the baseline) or ``disappeared`` against the baseline."""
    loaded = run_data_many(session, runs=[(r, name) for name, runs in experiments for r in runs],
                           frozen_at=frozen_at)
    out: list[dict[str, Any]] = []
    for name, runs in experiments:
        fired: dict[tuple[str, str], list[tuple[str, Finding]]] = {}
        for i, run in enumerate(runs):
            seen: set[tuple[str, str]] = set()
            for f in evaluate(loaded[run.id]):
                key = (f["rule"], f["severity"])
                if key not in seen:
                    seen.add(key)
                    fired.setdefault(key, []).append((run_label(run, i), f))
        findings = [merge_findings(items, len(runs)) for items in fired.values()]
        findings.sort(key=lambda f: SEVERITY_ORDER[f["severity"]])
        out.append({"experiment": name, "findings": findings, "appeared": [], "disappeared": []})
    if out:
        base_rules = {f["rule"] for f in out[0]["findings"]}
        for entry in out[1:]:
            rules = {f["rule"] for f in entry["findings"]}
            entry["appeared"] = sorted(rules - base_rules)
            entry["disappeared"] = sorted(base_rules - rules)
    return out
