"""The ss and dmesg collectors with the real tools: what they put in the stream is what the server parses."""

from __future__ import annotations

import threading
import time
import uuid
from pathlib import Path

import pytest
from perflab import parsers  # the server's parsers, to read what the agent sent
from perflab_agent.collectors import SnapshotCollector, ToolCollector, capability, parse_spec


class Stream:
    """What the collectors need of a LineStream: add lines, close once with an error or not."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.closed = threading.Event()
        self.error: str | None = None

    def add(self, text: str) -> None:
        self.lines.append(text)

    def close(self, error: str | None = None) -> None:
        self.error = error
        self.closed.set()


def test_specs_take_no_argument() -> None:
    for kind in ("ss-s", "ss-ltn", "dmesg"):
        spec = parse_spec(kind)
        assert spec.name == kind and not spec.windowed
        with pytest.raises(ValueError, match="takes no argument"):
            parse_spec(f"{kind}:x")


@pytest.mark.parametrize("kind", ["ss-s", "ss-ltn"])
def test_ss_snapshots_at_start_and_end_parse_on_the_server(kind: str) -> None:
    spec = parse_spec(kind)
    assert capability(spec) == (True, None)
    stream = Stream()
    collector = SnapshotCollector(spec, stream)
    collector.start()
    first = len(stream.lines)
    collector.stop()
    assert stream.closed.is_set() and stream.error is None
    assert 0 < first < len(stream.lines)  # two snapshots: before and after
    parsed = parsers.parse(kind, "\n".join(stream.lines) + "\n")
    if kind == "ss-s":
        assert parsed["tcp"]["total"] >= 0 and parsed["total"] is not None
    else:
        assert parsed["listeners"] and all(ln["send_q"] >= 0 for ln in parsed["listeners"])


def test_dmesg_follows_new_kernel_messages_during_the_run() -> None:
    spec = parse_spec("dmesg")
    assert capability(spec) == (True, None)
    stream = Stream()
    collector = ToolCollector(spec, stream)
    collector.start()
    try:
        time.sleep(0.5)
        marker = f"perflab-agent test marker {uuid.uuid4().hex}"
        # A line in the kernel log, as a root process may write one: the same path kernel messages take.
        with open("/dev/kmsg", "w") as kmsg:
            kmsg.write(marker + "\n")
        deadline = time.monotonic() + 5
        while not any(marker in line for line in stream.lines) and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        collector.stop()
    assert stream.closed.is_set() and stream.error is None
    assert any(marker in line for line in stream.lines)
    parsed = parsers.parse("dmesg", "\n".join(stream.lines) + "\n")
    assert parsed["lines"] >= 1 and parsed["time_format"] == "boot"


def test_nstat_counts_only_what_happened_during_the_run() -> None:
    import socket

    spec = parse_spec("nstat")
    assert capability(spec) == (True, None)
    stream = Stream()
    collector = SnapshotCollector(spec, stream)
    collector.start()
    assert stream.lines == []  # the start only resets our history
    # three refused connections on loopback during the "run"
    for _ in range(3):
        s = socket.socket()
        try:
            s.connect(("127.0.0.1", 1))
        except OSError:
            pass
        finally:
            s.close()
    collector.stop()
    assert stream.error is None
    parsed = parsers.parse("nstat", "\n".join(stream.lines) + "\n")
    # deltas, not totals since boot: small numbers, and the refused SYNs among them
    assert 3 <= parsed["counters"]["TcpActiveOpens"] + parsed["counters"].get("TcpAttemptFails", 0) < 10_000
    assert not any(p.name.startswith("perflab-nstat-") and p.exists() for p in [Path(collector.history).parent])
