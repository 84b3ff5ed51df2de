"""The agent zipapp served at /agent/perflab-agent.pyz, built once per process by the agent's own builder."""

from __future__ import annotations

import importlib
import threading

_lock = threading.Lock()
_cache: bytes | None = None


def zipapp_bytes() -> bytes:
    global _cache
    with _lock:
        if _cache is None:
            # The agent is a separate, untyped, Python-3.6 package: import its builder by name.
            _cache = bytes(importlib.import_module("perflab_agent.zipapp").build_bytes())
        return _cache
