"""strace -c and perf collectors on a real busy process: bounded windows, a profile upload, and strace
never left attached after the run ends."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.agent.fakeserver import FakeServer
from tests.agent.helpers import PY36, start_daemon, wait_until

BUSY = "plbusy"


@pytest.fixture
def busy() -> Iterator[int]:
    """A process named plbusy that burns CPU and makes syscalls (nanosleep)."""
    code = (f"open('/proc/self/comm', 'w').write({BUSY!r})\nimport time\nwhile True:\n"
            "    sum(range(20000))\n    time.sleep(0.001)\n")
    proc = subprocess.Popen([PY36, "-c", code])
    yield proc.pid
    proc.kill()
    proc.wait()


def _tracer(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return int(next(line for line in f if line.startswith("TracerPid:")).split()[1])


def test_perf_then_strace_windows_end_with_the_run(server: FakeServer, tmp_path: Path, busy: int) -> None:
    run_id = server.create_run(state="waiting")
    daemon = start_daemon(server.url, server.token, tmp_path / "state", "--collect", f"perf:{BUSY}:1",
                          "--collect", f"strace-c:{BUSY}:60")
    try:
        joined = wait_until(lambda: server.joined(run_id), 20, "join")
        assert next(iter(joined.values()))["streams"] == ["perf:plbusy", "strace-c:plbusy"]
        assert _tracer(busy) == 0, "nothing attaches before the load starts"
        server.set_state(run_id, "running")
        profile = wait_until(lambda: server.profiles, 30, "perf profile")[0]
        assert (profile["name"], profile["role"]) == ("perf", "proxy")
        assert BUSY in profile["data"].decode(errors="replace")
        wait_until(lambda: _tracer(busy) != 0, 20, "strace attached")
        # The run ends long before the 60 s strace window: strace must detach now.
        server.end_run(run_id)
        wait_until(lambda: _tracer(busy) == 0, 10, "strace detached")
        wait_until(lambda: server.stream_closed(run_id, f"strace-c:{BUSY}"), 20, "strace stream closed")
        wait_until(lambda: server.stream_closed(run_id, f"perf:{BUSY}"), 20, "perf stream closed")
    finally:
        daemon.stop()
    [table] = server.batches(run_id, f"strace-c:{BUSY}")
    texts = [line[2] for line in table["lines"]]
    assert table["closed"] and table["error"] is None, "the whole table in one closing batch"
    assert any(t.lstrip().startswith("% time") for t in texts) and texts[-1].split()[-1] == "total"
    perf = server.batches(run_id, f"perf:{BUSY}")
    assert perf[-1]["closed"] and perf[-1]["error"] is None
    assert any("perf record" in line[2] for line in server.lines(run_id, f"perf:{BUSY}"))


def test_windows_report_a_missing_process(server: FakeServer, tmp_path: Path) -> None:
    run_id = server.create_run()
    daemon = start_daemon(server.url, server.token, tmp_path / "state", "--collect", "strace-c:nosuchproc:1")
    try:
        wait_until(lambda: server.stream_closed(run_id, "strace-c:nosuchproc"), 20, "closed stream")
    finally:
        daemon.stop()
    [batch] = server.batches(run_id, "strace-c:nosuchproc")
    assert batch["error"] == "no process named nosuchproc" and batch["lines"] == []
