"""Build the agent zipapp served at /agent/perflab-agent.pyz from the installed perflab_agent package."""

from __future__ import annotations

import importlib
import io
import threading
import zipfile
from pathlib import Path

_lock = threading.Lock()
_cache: bytes | None = None

MAIN = b"from perflab_agent.__main__ import main\nimport sys\nsys.exit(main())\n"


def build_zipapp() -> bytes:
    # The agent is a separate, untyped, Python-3.6 package: import it by name.
    perflab_agent = importlib.import_module("perflab_agent")

    pkg = Path(next(iter(perflab_agent.__path__)))
    buf = io.BytesIO()
    buf.write(b"#!/usr/bin/env python3\n")
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("__main__.py", MAIN)
        for path in sorted(pkg.rglob("*.py")):
            zf.write(path, str(Path("perflab_agent") / path.relative_to(pkg)))
    return buf.getvalue()


def zipapp_bytes() -> bytes:
    global _cache
    with _lock:
        if _cache is None:
            _cache = build_zipapp()
        return _cache
