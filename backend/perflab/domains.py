"""The list of domains that plug routers and CLI commands into the app, in one place."""

from __future__ import annotations

import importlib
from types import ModuleType

ROUTER_MODULES = (
    "perflab.auth.router",
    "perflab.projects.router",
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
)

CLI_MODULES = ("perflab.runs.cli", "perflab.profiles.cli", "perflab.demo")


def load(module: str) -> ModuleType | None:
    """Import a domain module; None while that domain is not part of this build yet."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (module == exc.name or module.startswith(exc.name + ".")):
            return None
        raise
