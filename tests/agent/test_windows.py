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


def test_plan_fits_every_window_inside_the_load() -> None:
    from perflab_agent.collectors import Spec, plan_windows

    strace, perf = Spec("strace-c", "nginx", 5.0), Spec("perf", "nginx", 5.0)
    start, plan = plan_windows([strace, perf], 10.0)
    assert start == 2.0 and [(s.kind, sec, note) for s, sec, note in plan] == [
        ("strace-c", 5.0, None), ("perf", 5.0, None)]
    # A 4 s load: both start 0.8 s in and last 2.7 s, ending 0.5 s before the load does.
    start, plan = plan_windows([strace, perf], 4.0)
    assert start == 0.8 and {round(sec or 0, 2) for _, sec, _ in plan} == {2.7}
    assert "shortened from 5 s to 2.7 s" in (plan[0][2] or "")
    # A 1 s load has no room: the window says so, in terms of the load.
    _, plan = plan_windows([strace], 1.0)
    assert plan[0][1] is None and "the load lasted 1 s: too short for a strace-c window" in (plan[0][2] or "")
    # Unknown length (not wrk): windows keep their length and still end with the run.
    assert plan_windows([strace], None) == (2.0, [(strace, 5.0, None)])


def _attached_between(pid: int, until: float) -> tuple[float | None, float | None]:
    """When strace attached to pid and detached from it, by polling TracerPid until `until`."""
    import time

    attached = detached = None
    while time.monotonic() < until:
        traced = _tracer(pid) != 0
        if traced and attached is None:
            attached = time.monotonic()
        if not traced and attached is not None and detached is None:
            detached = time.monotonic()
            break
        time.sleep(0.02)
    return attached, detached


def test_strace_and_perf_run_together_inside_a_short_load(server: FakeServer, tmp_path: Path, busy: int) -> None:
    """The issue's case: strace-c:5 and perf:5 on a short wrk. Before, perf ran first and perf script took
    seconds, so strace attached after the load had ended and traced an idle process."""
    import time

    run_id = server.create_run(state="waiting", load_seconds=4.0)
    daemon = start_daemon(server.url, server.token, tmp_path / "state", "--collect", f"perf:{BUSY}:5",
                          "--collect", f"strace-c:{BUSY}:5")
    try:
        wait_until(lambda: server.joined(run_id), 20, "join")
        load_started = time.monotonic()
        server.set_state(run_id, "running")
        attached, detached = _attached_between(busy, load_started + 8)
        assert attached is not None and detached is not None, "strace attached and detached"
        # Together with perf, not after it: both windows start 0.8 s into the load and last 2.7 s, so
        # strace attaches before perf's window could have ended (3.5 s; one after the other it attached
        # after perf script, past the load) and detaches by the end of the 4 s load. The poll that
        # delivers "running" and a busy CI machine add up to a second.
        assert attached - load_started < 3.5, f"strace attached {attached - load_started:.1f} s into the load"
        assert detached - load_started < 5.0, f"strace detached {detached - load_started:.1f} s into the load"
        wait_until(lambda: server.stream_closed(run_id, f"strace-c:{BUSY}"), 20, "strace stream closed")
        profile = wait_until(lambda: server.profiles, 40, "perf profile")[0]
        assert BUSY in profile["data"].decode(errors="replace")
        server.end_run(run_id)
        wait_until(lambda: server.stream_closed(run_id, f"perf:{BUSY}"), 20, "perf stream closed")
    finally:
        daemon.stop()
    [table] = server.batches(run_id, f"strace-c:{BUSY}")
    texts = [line[2] for line in table["lines"]]
    assert table["error"] is None and any(t.lstrip().startswith("% time") for t in texts)
    calls = int(texts[-1].split()[3])  # % time, seconds, usecs/call, calls, [errors,] total
    assert calls > 100, f"a busy process makes syscalls during the load: {texts[-1]!r}"


def test_a_window_that_cannot_fit_says_so_and_does_not_attach(server: FakeServer, tmp_path: Path, busy: int) -> None:
    run_id = server.create_run(state="waiting", load_seconds=1.0)
    daemon = start_daemon(server.url, server.token, tmp_path / "state", "--collect", f"strace-c:{BUSY}:5")
    try:
        wait_until(lambda: server.joined(run_id), 20, "join")
        server.set_state(run_id, "running")
        wait_until(lambda: server.stream_closed(run_id, f"strace-c:{BUSY}"), 20, "strace stream closed")
        assert _tracer(busy) == 0
        server.end_run(run_id)
    finally:
        daemon.stop()
    [batch] = server.batches(run_id, f"strace-c:{BUSY}")
    assert batch["lines"] == [] and "the load lasted 1 s: too short for a strace-c window" in batch["error"]
