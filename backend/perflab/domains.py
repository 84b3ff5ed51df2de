"""The list of domains that plug routers and CLI commands into the app, in one place."""

from __future__ import annotations

import importlib
from types import ModuleType

# Routes are matched in this order, one regex after another: the agents' routes come first, as every agent
# sends a batch a second per stream (matching them behind ~150 UI routes took a tenth of the serving
# process's time under 40 live agents).
ROUTER_MODULES = (
    "perflab.ingest.router",
    "perflab.auth.router",
    "perflab.projects.router",
    "perflab.members.router",
    "perflab.tokens.router",
    "perflab.experiments.router",
    "perflab.runs.router",
    "perflab.hosts.router",
    "perflab.artifacts.router",
    "perflab.series.router",
    "perflab.imports.router",
    "perflab.notes.router",
    "perflab.decisions.router",
    "perflab.compare.router",
    "perflab.sharing.router",
    "perflab.profiles.router",
    "perflab.findings.router",
    "perflab.trends.router",
    "perflab.alerts.router",
    "perflab.trash.router",
)

CLI_MODULES = ("perflab.runs.cli", "perflab.profiles.cli", "perflab.artifacts.cli", "perflab.demo")


def load(module: str) -> ModuleType:
    """Import a domain module by name (imported lazily so the CLI starts without the web app)."""
    return importlib.import_module(module)
