"""How long a run's load lasts, read from its load command, so daemons fit their strace and perf windows
inside it (agents/perflab_agent/collectors.py plan_windows)."""

from __future__ import annotations

import os
import re
import shlex

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*$", re.IGNORECASE)
_UNIT_S = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0}
WRK_NAMES = ("wrk", "wrk2")
WRK_DEFAULT_S = 10.0


def _seconds(text: str) -> float | None:
    m = _DURATION.match(text)
    return float(m.group(1)) * _UNIT_S[m.group(2).lower()] if m else None


def load_seconds(load_command: str) -> float | None:
    """Seconds of a wrk load (-d/--duration, 10 s by default); None for commands whose length is unknown."""
    try:
        argv = shlex.split(load_command or "")
    except ValueError:
        return None
    if not any(os.path.basename(a) in WRK_NAMES for a in argv[:3]):
        return None
    for i, arg in enumerate(argv):
        value = None
        if arg in ("-d", "--duration") and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith("--duration="):
            value = arg.split("=", 1)[1]
        elif arg.startswith("-d") and not arg.startswith("--") and len(arg) > 2:
            value = arg[2:]
        if value is not None:
            return _seconds(value)
    return WRK_DEFAULT_S
