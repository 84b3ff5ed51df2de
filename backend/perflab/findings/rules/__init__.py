"""The findings rules, one module per family of bottleneck; importing this package registers them all.

``RULES`` lists them in the order of ``FAMILIES`` (then of definition within a module): the order of the
generated README and of findings of equal severity. A new family is a module here that uses
``base.rule``, imported below and named in ``FAMILIES``.
"""

from __future__ import annotations

from perflab.findings.rules import cpu, errors, loadgen, network, nginx, proxy, sockets, workers
from perflab.findings.rules.base import PROFILE_FUNCTIONS, RULES, SEVERITY_ORDER, Evidence, Finding, Rule, RunData

# Importing a module registers its rules; this order (not the import's) is the README's.
FAMILIES = (errors, proxy, sockets, loadgen, cpu, workers, nginx, network)
RULES.sort(key=lambda r: [m.__name__ for m in FAMILIES].index(r.check.__module__))

__all__ = ["PROFILE_FUNCTIONS", "RULES", "SEVERITY_ORDER", "Evidence", "Finding", "Rule", "RunData", "evaluate"]


def evaluate(data: RunData) -> list[Finding]:
    """Every rule's findings for one run, most severe first."""
    out: list[Finding] = []
    for r in RULES:
        out.extend(r.check(data))
    out.sort(key=lambda f: SEVERITY_ORDER[f["severity"]])
    return out
