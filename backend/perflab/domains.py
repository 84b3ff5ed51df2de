"""The list of domains that plug routers and CLI commands into the app, in one place."""

from __future__ import annotations

import importlib
from types import ModuleType

ROUTER_MODULES = (
    "perflab.auth.router",
    "perflab.projects.router",
    "perflab.members.router",
    "perflab.tokens.router",
    "perflab.experiments.router",
    "perflab.runs.router",
    "perflab.hosts.router",
    "perflab.artifacts.router",
    "perflab.ingest.router",
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
