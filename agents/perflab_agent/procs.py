"""Child processes and /proc: tools start in their own process group with the tool environment and never
outlive the agent; target processes are found by name and ranked by CPU use."""

import atexit
import os
import signal
import subprocess
import threading
import time

from perflab_agent.util import log, tool_env

_children = {}
_children_lock = threading.Lock()
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


class Shutdown(BaseException):
    """SIGTERM or SIGHUP: unwinds the main thread like Ctrl-C does (and, like it, is not an Exception,
    so no broad `except Exception` swallows it)."""


def spawn(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE):
    """Start a tool: own session and process group (so one signal reaches it and its children, and a
    Ctrl-C in our terminal does not), C locale, no token in its environment."""
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr,
                            env=tool_env(), start_new_session=True, close_fds=True)
    with _children_lock:
        _children[proc.pid] = proc
    return proc


def forget(proc):
    with _children_lock:
        _children.pop(proc.pid, None)


def signal_group(proc, sig):
    try:
        os.killpg(proc.pid, sig)
    except OSError:
        pass


def stop(proc, sig=signal.SIGTERM, grace=3.0, group=True):
    """Ask a tool to finish with `sig` (to its group, or only to it), then SIGKILL the group after
    `grace` seconds. Returns its exit status."""
    if proc.poll() is None:
        if group:
            signal_group(proc, sig)
        else:
            try:
                proc.send_signal(sig)
            except OSError:
                pass
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            log.warning("%s did not exit %.0fs after %s; killing it", proc.args[0], grace,
                        signal.Signals(sig).name)
    signal_group(proc, signal.SIGKILL)
    proc.wait()
    forget(proc)
    return proc.returncode


def kill_all():
    """Last resort when the agent exits: nothing we started may keep running (strace stays attached)."""
    with _children_lock:
        procs = list(_children.values())
        _children.clear()
    for proc in procs:
        if proc.poll() is None:
            signal_group(proc, signal.SIGTERM)
    deadline = time.monotonic() + 1.0
    for proc in procs:
        try:
            proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
        signal_group(proc, signal.SIGKILL)


def child_pids():
    with _children_lock:
        return set(_children)


def _raise_shutdown(signum, frame):
    raise Shutdown(signal.Signals(signum).name)


def install_exit_handlers():
    atexit.register(kill_all)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _raise_shutdown)
    # Restore the default: when started in the background by a shell, SIGINT may be ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)


# ---------------------------------------------------------------- /proc


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return None


def find_processes(name):
    """PIDs whose command name is `name` (as ps shows it; the kernel truncates it to 15 characters).
    When none is, those whose name contains it, the way `pidstat -C` selects. Never our own."""
    own = {os.getpid()} | child_pids()
    exact, partial = [], []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in own:
            continue
        comm = _read(f"/proc/{entry}/comm")
        if comm is None:
            continue
        comm = comm.rstrip("\n")
        if comm == name or comm == name[:15]:
            exact.append(int(entry))
        elif name in comm:
            partial.append(int(entry))
    return sorted(exact or partial)


def cpu_ticks(pid):
    """utime + stime of a process, in clock ticks (None when it is gone)."""
    stat = _read(f"/proc/{pid}/stat")
    if not stat:
        return None
    # The command name may contain spaces and parentheses: fields start after the last ')'.
    fields = stat[stat.rfind(")") + 2:].split()
    try:
        return int(fields[11]) + int(fields[12])
    except (IndexError, ValueError):
        return None


def busiest(pids, interval=1.0):
    """The PID that used the most CPU over `interval` seconds (nginx's master is idle, a worker is not)."""
    before = {pid: cpu_ticks(pid) for pid in pids}
    time.sleep(interval)
    best, best_delta = None, -1
    for pid in pids:
        after = cpu_ticks(pid)
        if after is None or before[pid] is None:
            continue
        if after - before[pid] > best_delta:
            best, best_delta = pid, after - before[pid]
    return best


class SelfUsage:
    """The agent's own CPU (percent of one core since the last reading) and resident memory."""

    def __init__(self):
        self._last = (time.monotonic(), self._cpu_seconds())

    @staticmethod
    def _cpu_seconds():
        ticks = cpu_ticks(os.getpid())
        return (ticks or 0) / float(CLOCK_TICKS)

    def cpu_pct(self):
        now, cpu = time.monotonic(), self._cpu_seconds()
        last_now, last_cpu = self._last
        self._last = (now, cpu)
        if now <= last_now:
            return 0.0
        return round(100.0 * (cpu - last_cpu) / (now - last_now), 2)

    @staticmethod
    def rss_kb():
        for line in (_read("/proc/self/status") or "").splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return None
