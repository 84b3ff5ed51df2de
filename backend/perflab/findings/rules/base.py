"""What every rule shares: the run's data it reads, the registry, and how a finding is built.

The rules: each one a small pure function over a run's precomputed data, returning findings.

A rule reads only ``RunData`` (summaries, ``series.stats`` steady-state means, host facts, config
and sysctl snapshots): no database, no raw samples, so findings cost milliseconds per run and can be
recomputed whenever a rule changes. Thresholds are module constants, documented in ``RULES`` (the
generated ``README.md`` beside this file lists them).

A finding is a dict::

    {"rule": "copy-bound-proxy", "severity": "critical" | "warning" | "info",
     "experiment": "default", "run_id": "...", "title": "...",
     "evidence": [{"kind": "syscall" | "series" | "log" | "sysctl" | "counter" | "listener" | "config"
                            | "summary" | "process",
                   "label": "readv", "value": "31,776 calls, 22.0% of syscall time",
                   "ref": {...}}],        # where it is: {"syscall": "readv", "role": "proxy"}, a series
                                          # {"role", "source", "metric", "key"}, a log {"line", "text"}, ...
     "suggestion": {"component": "nginx", "knob": "proxy_buffers", "from": "8 4k (default)",
                    "to": "4 128k"} | null,
     "docs": "https://nginx.org/..."}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

Finding = dict[str, Any]
Evidence = dict[str, Any]

SEVERITY_ORDER = {"critical": 0, "warning": 1, "info": 2}


@dataclass
class RunData:
    """Everything the rules may read about one run (built by the service from the database, or by tests)."""

    run_id: str
    experiment: str
    # (role, kind, parsed data) of every summary: wrk, strace-c, ss-s, ss-ltn, dmesg, sysctl, ...
    summaries: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    # {"role", "source", "metric", "key", "labels", "unit", "stats": {"mean", "max", ...}}
    series: list[dict[str, Any]] = field(default_factory=list)
    # sysctl name -> value as text ("32768 60999"), from sysctl summaries and snapshots
    sysctl: dict[str, str] = field(default_factory=dict)
    # (role, file name, text, parsed form or None) of config snapshots (nginx.conf ...): the form stored with
    # the snapshot (compare.configs.parsed_form), read instead of parsing the text; None: parsed when read
    configs: list[tuple[str, str, str, dict[str, Any] | None]] = field(default_factory=list)
    # role -> host facts from the agent's hello (cpus_online, cgroup_cpu_limit, ...), or read by an import
    # from cgroup files, nproc, lscpu (a "host-facts" summary)
    facts: dict[str, dict[str, Any]] = field(default_factory=dict)
    # CPU profiles: {"role", "profile_id", "name", "total", "functions": {name: {"self", "total"}}}, only the
    # functions some rule looks for (PROFILE_FUNCTIONS), so a run's findings never read a whole profile.
    profiles: list[dict[str, Any]] = field(default_factory=list)

    def all(self, kind: str) -> list[tuple[str, dict[str, Any]]]:
        return [(role, data) for role, k, data in self.summaries if k == kind]

    def first(self, *kinds: str) -> tuple[str, dict[str, Any]] | None:
        for kind in kinds:
            found = self.all(kind)
            if found:
                return found[0]
        return None

    def sysctl_int(self, name: str) -> int | None:
        value = self.sysctl.get(name)
        if value is None:
            return None
        parts = value.split()
        return int(parts[0]) if len(parts) == 1 and parts[0].lstrip("-").isdigit() else None

    def series_mean(self, source: str, metric: str) -> tuple[dict[str, Any], float] | None:
        """The series (first role that has it) and its steady-state mean."""
        for s in self.series:
            if s["source"] == source and s["metric"] == metric:
                mean = (s.get("stats") or {}).get("mean")
                if mean is not None:
                    return s, float(mean)
        return None

    def nginx(self) -> tuple[str, str, dict[tuple[str, str], str]] | None:
        """(role, file, directives) of the first nginx-like config snapshot."""
        from perflab.compare import configs  # pure text helpers, shared with the config diff

        for role, name, text, form in self.configs:
            form = form if form is not None else configs.parsed_form(text, kind="config")
            if form["format"] == "nginx":
                found = configs.directives(form)
                if found is not None:  # None: stored before the nesting cap, no rule can read it
                    return role, name, found
        return None


    def nginx_values(self, directive: str) -> list[str]:
        """Every value of one nginx directive in the first nginx config, in any context."""
        nginx = self.nginx()
        if nginx is None:
            return []
        return [v for (_, name), value in nginx[2].items() if name == directive for v in value.split(" | ")]

    def role_facts(self, role: str | None = None) -> tuple[str, dict[str, Any]] | None:
        """(role, facts) of this role, else of the only (or first) host with facts."""
        if role is not None and self.facts.get(role):
            return role, self.facts[role]
        return next(((r, f) for r, f in self.facts.items() if f), None)


# Functions the rules look for in profiles (the service loads only these rows of a profile's function table).
PROFILE_FUNCTIONS: set[str] = set()


@dataclass(frozen=True)
class Rule:
    id: str
    title: str
    reads: str
    thresholds: str
    suggests: str
    false_positives: str
    docs: str
    check: Callable[[RunData], list[Finding]]


RULES: list[Rule] = []


def rule(**meta: str) -> Callable[[Callable[[RunData], list[Finding]]], Callable[[RunData], list[Finding]]]:
    def wrap(fn: Callable[[RunData], list[Finding]]) -> Callable[[RunData], list[Finding]]:
        RULES.append(Rule(check=fn, **meta))
        return fn

    return wrap


def make_finding(data: RunData, rule_id: str, severity: str, title: str, evidence: list[Evidence],
                 suggestion: dict[str, str] | None) -> Finding:
    docs = next(r.docs for r in RULES if r.id == rule_id)
    return {"rule": rule_id, "severity": severity, "experiment": data.experiment, "run_id": data.run_id,
            "title": title, "evidence": evidence, "suggestion": suggestion, "docs": docs}


# The syscall a traced server reads each request with (nginx's recv of the client's request).
REQUEST_SYSCALL = "recvfrom"


def strace_requests(rows: Mapping[str, Mapping[str, Any]]) -> int:
    """Requests the traced process read during its strace -c window, from its own table: its recvfrom
    calls (0 when it made none: the requests are unknown). One definition for every "per request"
    figure: the copy-bound-proxy finding and the compare page's syscall table."""
    return int((rows.get(REQUEST_SYSCALL) or {}).get("calls") or 0)


def num(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() or abs(x) >= 100 else f"{x:,.1f}"


def series_evidence(s: dict[str, Any], mean: float, label: str) -> Evidence:
    stats = s.get("stats") or {}
    extra = f", max {num(stats['max'])}" if stats.get("max") is not None else ""
    return {"kind": "series", "label": label, "value": f"steady-state mean {mean:.1f}{s.get('unit') or ''}{extra}",
            "ref": {"role": s["role"], "source": s["source"], "metric": s["metric"], "key": s["key"]}}
