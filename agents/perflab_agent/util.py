"""Helpers shared by the agent's modules: durable writes, secret redaction, the tools' environment, state."""

import logging
import os
import re
import tempfile
import uuid

log = logging.getLogger("perflab_agent")

REDACTED = "[REDACTED]"

# What every tool we start gets, so its output is the C-locale format the server parses best
# (sysstat honours S_TIME_FORMAT=ISO for its dates) and nothing sits in a stdio buffer.
TOOL_ENV = {"LC_ALL": "C", "LANG": "C", "S_TIME_FORMAT": "ISO", "PYTHONUNBUFFERED": "1"}


class Redactor:
    """Replaces secrets (the token) wherever they could leak: log records, streamed lines, uploads."""

    def __init__(self):
        self._secrets = []

    def add(self, secret):
        # A very short "secret" would redact half of every line; a real token is ~40 characters.
        if not secret or len(secret) < 8:
            return
        # Also as a URL or form encoder writes it (plb%5F...), e.g. in a curl command line.
        for form in (secret, secret.replace("_", "%5F"), secret.replace("_", "%5f")):
            if form not in self._secrets:
                self._secrets.append(form)

    def contains(self, text):
        return any(s in text for s in self._secrets)

    def text(self, text):
        for s in self._secrets:
            if s in text:
                text = text.replace(s, REDACTED)
        return text

    def data(self, data):
        for s in self._secrets:
            raw = s.encode("utf-8")
            if raw in data:
                data = data.replace(raw, REDACTED.encode("ascii"))
        return data


# One per process: the CLI registers the token as soon as it has read it, before any logging.
redactor = Redactor()


class RedactingFilter(logging.Filter):
    """Rewrites every log record through the redactor, whatever a message or exception carried."""

    def filter(self, record):
        message = record.getMessage()
        if record.exc_info:
            message += "\n" + logging.Formatter().formatException(record.exc_info)
            record.exc_info = None
            record.exc_text = None
        record.msg = redactor.text(message)
        record.args = None
        return True


def tool_env():
    """The environment for a child process: ours minus anything carrying the token, plus TOOL_ENV."""
    env = {}
    for key, value in os.environ.items():
        if key == "PERFLAB_TOKEN" or redactor.contains(value):
            continue
        env[key] = value
    # LANGUAGE would still translate messages of some GNU tools; LC_ALL=C is meant to win.
    env.pop("LANGUAGE", None)
    env.update(TOOL_ENV)
    return env


def fsync_dir(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path, data, durable=True):
    """Write bytes so that a crash leaves the old file or the new one, never a torn one.

    Temp file in the same directory, fsync, rename, fsync of the directory (so the rename itself
    survives a power cut). Leftover temp files start with ".tmp-" and are swept by the spool.
    """
    directory = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if durable:
        fsync_dir(directory)


def default_state_dir():
    if os.geteuid() == 0:
        return "/var/lib/perflab-agent"
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "perflab-agent")


def load_agent_id(state_dir, create=True):
    """The agent's identity: a uuid4 generated on first start and kept, so the server knows a restart
    of the same host from a new one (and deduplicates its batches across restarts)."""
    path = os.path.join(state_dir, "agent_id")
    try:
        with open(path) as f:
            value = f.read().strip()
        return str(uuid.UUID(value))
    except (OSError, ValueError):
        if not create:
            return None
    os.makedirs(state_dir, mode=0o700, exist_ok=True)
    value = str(uuid.uuid4())
    atomic_write(path, (value + "\n").encode("ascii"))
    return value


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$", re.IGNORECASE)
_UNIT_S = {None: 1.0, "ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def parse_duration(text):
    """'60s', '2m', '1h', '30' (seconds) -> seconds as float; None when it is not a duration."""
    m = _DURATION.match(text or "")
    if not m:
        return None
    unit = m.group(2).lower() if m.group(2) else None
    return float(m.group(1)) * _UNIT_S[unit]


_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{0,63}$")


def valid_run_id(run_id):
    """Run ids come from the server and become directory names: accept only uuid-like text."""
    return isinstance(run_id, str) and bool(_RUN_ID.match(run_id))


def format_duration(seconds):
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return "{}m{:02d}s".format(*divmod(seconds, 60))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}h{rest // 60:02d}m"
