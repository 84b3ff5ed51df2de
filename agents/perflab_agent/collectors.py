"""Collectors: which tool runs for `--collect SPEC`, what it needs on this host, and how it is started,
read and stopped. Also the config-file and sysctl snapshots taken when a run starts.

    vmstat              vmstat -t 1 for the whole run
    pidstat:PROC        pidstat -h -u -w -r -C PROC 1 for the whole run
    netqtop:IFACE       netqtop -n IFACE -i 1 for the whole run (bcc, root)
    strace-c:PROC[:S]   strace -c -f -p PID on the busiest PROC for S seconds (default 10), one batch
    perf:PROC[:S]       perf record -F 499 -g on every PROC for S seconds, uploaded as a profile
    dmesg               the kernel log's new messages during the run (dmesg --follow-new; root when
                        kernel.dmesg_restrict=1): conntrack full, SYN flooding, TIME_WAIT overflow...
    ss-s, ss-ltn        ss -s / ss -ltnp snapshots when the run starts and when it ends
    nstat               nstat -z at the end of the run: the kernel's SNMP counters (listen overflows,
                        retransmits...) counted during the run only (a history file of our own)
"""

import collections
import gzip
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time

from perflab_agent import procs
from perflab_agent.streams import start_pump
from perflab_agent.util import log, redactor

KINDS = ("vmstat", "pidstat", "netqtop", "strace-c", "perf", "dmesg", "ss-s", "ss-ltn", "nstat")
CONTINUOUS = ("vmstat", "pidstat", "netqtop", "dmesg")
# One output at the start of the run and one at its end, in the same stream.
SNAPSHOTS = {"ss-s": ["ss", "-s"], "ss-ltn": ["ss", "-ltnp"], "nstat": ["nstat", "-z"]}
SNAPSHOT_TIMEOUT_S = 10.0
DEFAULT_WINDOW_S = 10.0
MAX_WINDOW_S = 3600.0
STOP_GRACE_S = 3.0
# strace prints its table when it detaches; give it time to do so before SIGKILL.
STRACE_DETACH_GRACE_S = 5.0
PERF_SCRIPT_TIMEOUT_S = 300.0
CONFIG_MAX_BYTES = 4 * 1024 * 1024
NETQTOP_CANDIDATES = ("netqtop", "netqtop-bpfcc", "/usr/share/bcc/tools/netqtop", "/usr/sbin/netqtop-bpfcc")
# Stream names the server accepts (letters, digits, _ . @ + -): "pidstat:" + this must match.
_NAME = re.compile(r"^[A-Za-z0-9_.@+-]{1,64}$")
_IFACE = re.compile(r"^[A-Za-z0-9_.:@-]{1,15}$")


class Spec:
    """One `--collect` argument, parsed. `name` is the stream name on the wire."""

    def __init__(self, kind, target=None, seconds=None):
        self.kind = kind
        self.target = target
        self.seconds = seconds
        self.name = kind if target is None else f"{kind}:{target}"

    @property
    def raw(self):
        return self.name if self.seconds is None else f"{self.name}:{self.seconds:g}"

    @property
    def windowed(self):
        return self.kind not in CONTINUOUS and self.kind not in SNAPSHOTS


def parse_spec(text):
    """'pidstat:nginx' -> Spec; raises ValueError with a message fit for the command line."""
    kind, _, rest = text.partition(":")
    if kind not in KINDS:
        raise ValueError("unknown collector {!r} (one of: {})".format(kind, ", ".join(KINDS)))
    if kind == "vmstat" or kind == "dmesg" or kind in SNAPSHOTS:
        if rest:
            raise ValueError(f"{kind} takes no argument")
        return Spec(kind)
    if kind == "netqtop":
        if not _IFACE.match(rest):
            raise ValueError("netqtop needs an interface name: netqtop:eth0")
        return Spec(kind, rest)
    target, seconds = rest, None
    if kind in ("strace-c", "perf"):
        head, sep, tail = rest.rpartition(":")
        if sep and re.match(r"^\d+(\.\d+)?$", tail):
            target, seconds = head, float(tail)
        else:
            seconds = DEFAULT_WINDOW_S
        if not 0 < seconds <= MAX_WINDOW_S:
            raise ValueError(f"{text}: the window must be between 0 and {MAX_WINDOW_S:g} seconds")
    if not _NAME.match(target or ""):
        raise ValueError(f"{kind} needs a process name: {kind}:nginx")
    return Spec(kind, target, seconds)


# Windows start this long after the load (a steady state), or a fifth of a short load, and end this long
# before the load does, so strace detaches and perf stops while the load still runs.
WINDOW_DELAY_S = 2.0
WINDOW_END_MARGIN_S = 0.5
MIN_WINDOW_S = 1.0


def plan_windows(specs, load_seconds, delay=WINDOW_DELAY_S):
    """When strace/perf windows start (seconds after the load starts) and how long each lasts, all
    together, inside a load of `load_seconds` (None: unknown, each window keeps its length and still ends
    with the run). Returns (start_s, [(spec, seconds or None, note)]): seconds None when the window cannot
    fit (note says why, in terms of the load), note set too when a window was shortened to fit."""
    if load_seconds is None:
        return delay, [(spec, spec.seconds, None) for spec in specs]
    start = min(delay, load_seconds / 5.0)
    room = load_seconds - start - WINDOW_END_MARGIN_S
    plan = []
    for spec in specs:
        if room < MIN_WINDOW_S:
            need = MIN_WINDOW_S + WINDOW_END_MARGIN_S
            note = (f"the load lasted {load_seconds:g} s: too short for a {spec.kind} window (it starts "
                    f"{start:g} s into the load and needs at least {need:g} s before the load ends); "
                    "make the load longer")
            plan.append((spec, None, note))
        elif spec.seconds > room:
            note = (f"{spec.kind} window shortened from {spec.seconds:g} s to {room:g} s to end inside the "
                    f"{load_seconds:g} s load")
            plan.append((spec, room, note))
        else:
            plan.append((spec, spec.seconds, None))
    return start, plan


def find_netqtop():
    for candidate in NETQTOP_CANDIDATES:
        path = candidate if os.path.isabs(candidate) else shutil.which(candidate)
        if path and os.access(path, os.X_OK):
            return path
    return None


def _read_int(path):
    try:
        with open(path) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def capability(spec):
    """(available, reason): whether this host can run the collector, and why not in words a user can act on."""
    root = os.geteuid() == 0
    if spec.kind == "vmstat":
        return (True, None) if shutil.which("vmstat") else (False, "vmstat not found (install procps)")
    if spec.kind == "pidstat":
        return (True, None) if shutil.which("pidstat") else (False, "pidstat not found (install sysstat)")
    if spec.kind in SNAPSHOTS:
        tool = SNAPSHOTS[spec.kind][0]
        return (True, None) if shutil.which(tool) else (False, f"{tool} not found (install iproute2)")
    if spec.kind == "dmesg":
        if not shutil.which("dmesg"):
            return False, "dmesg not found (install util-linux)"
        if not root and _read_int("/proc/sys/kernel/dmesg_restrict") == 1:
            return False, "kernel.dmesg_restrict=1: reading the kernel log needs root"
        return True, None
    if spec.kind == "netqtop":
        if not find_netqtop():
            return False, "bcc is not installed (netqtop not found; install bpfcc-tools or bcc-tools)"
        if not root:
            return False, "netqtop needs root (it loads eBPF programs)"
        if not os.path.isdir(os.path.join("/sys/class/net", spec.target)):
            return False, f"no network interface named {spec.target}"
        return True, None
    if spec.kind == "strace-c":
        if not shutil.which("strace"):
            return False, "strace not found (install strace)"
        scope = _read_int("/proc/sys/kernel/yama/ptrace_scope")
        if not root and scope is not None and scope >= 1:
            return False, f"kernel.yama.ptrace_scope={scope}: attaching needs root"
        if scope == 3:
            return False, "kernel.yama.ptrace_scope=3: ptrace attach is disabled"
        return True, None
    if spec.kind == "perf":
        if not shutil.which("perf"):
            return False, "perf not found (install linux-perf or perf)"
        paranoid = _read_int("/proc/sys/kernel/perf_event_paranoid")
        if not root and paranoid is not None and paranoid > 2:
            return False, f"kernel.perf_event_paranoid={paranoid}: perf needs root"
        return True, None
    return False, "unknown collector"


def command(spec):
    """The argv of a continuous collector."""
    if spec.kind == "vmstat":
        # Without -n: vmstat repeats its header every 21 rows, so a stream whose first batch the
        # spool had to drop still names its columns for the server's parser.
        return ["vmstat", "-t", "1"]
    if spec.kind == "pidstat":
        return ["pidstat", "-h", "-u", "-w", "-r", "-C", spec.target, "1"]
    if spec.kind == "netqtop":
        return [find_netqtop(), "-n", spec.target, "-i", "1"]
    if spec.kind == "dmesg":
        return dmesg_command()
    raise ValueError(spec.kind)


def dmesg_command():
    """Only the messages printed during the run: --follow-new (util-linux 2.37+); older dmesg (RHEL 8)
    has only -w, which prints the whole buffer first (findings then see old messages too)."""
    try:
        usage = subprocess.run(["dmesg", "--help"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=5, check=False,
                               universal_newlines=True).stdout  # noqa: UP021 - Python 3.6
    except (OSError, subprocess.SubprocessError):
        usage = ""
    return ["dmesg", "--follow-new"] if "--follow-new" in usage else ["dmesg", "-w"]


class SnapshotCollector:
    """A tool run once when the run starts and once when it ends (ss -s, ss -ltnp); both outputs go to
    the stream, so the run keeps the before and after."""

    def __init__(self, spec, stream):
        self.spec = spec
        self.stream = stream
        self.error = None
        # nstat prints deltas since its history file: ours alone, so the end output is the run's own
        self.history = None
        if spec.kind == "nstat":
            # in a private directory: nstat (often as root) writes the file by name
            self.history = os.path.join(tempfile.mkdtemp(prefix="perflab-nstat-"), "history")

    def _argv(self, start):
        argv = SNAPSHOTS[self.spec.kind]
        if self.history is None:
            return argv
        return ["env", "NSTAT_HISTORY=" + self.history] + (["nstat", "-n"] if start else argv)

    def _snap(self, start=False):
        try:
            proc = procs.spawn(self._argv(start))
            out, err = proc.communicate(timeout=SNAPSHOT_TIMEOUT_S)
        except (OSError, subprocess.SubprocessError) as e:
            self.error = f"{self.spec.kind} failed: {e}"
            return
        finally:
            try:
                procs.forget(proc)
            except UnboundLocalError:
                pass
        if proc.returncode != 0:
            self.error = "{} exited with status {}: {}".format(
                self.spec.kind, proc.returncode, err.decode("utf-8", "replace").strip()[-300:])
        for line in out.decode("utf-8", "replace").splitlines():
            self.stream.add(line)

    def start(self):
        self._snap(start=True)

    def stop(self, close=True):
        self._snap()
        if self.history is not None:
            shutil.rmtree(os.path.dirname(self.history), ignore_errors=True)
        if close:
            self.stream.close(self.error)


def _tail_text(tail):
    return " | ".join(line for line in tail if line.strip())[-500:]


class ToolCollector:
    """A tool printing a sample a second for the whole run. Each stdout line goes to the stream; stderr
    is kept to explain a failure."""

    def __init__(self, spec, stream):
        self.spec = spec
        self.stream = stream
        self.proc = None
        self._stopping = False
        self._tail = collections.deque(maxlen=10)
        self._threads = []

    def start(self):
        self.proc = procs.spawn(command(self.spec))
        self._threads = [start_pump(self.proc.stdout, self.stream, name="perflab-" + self.spec.name),
                         start_pump(self.proc.stderr, None, self._tail, name="perflab-err-" + self.spec.name)]
        watcher = threading.Thread(target=self._watch, name="perflab-watch-" + self.spec.name, daemon=True)
        watcher.start()

    def _watch(self):
        status = self.proc.wait()
        if self._stopping:
            return
        for thread in self._threads:
            thread.join(2.0)
        procs.forget(self.proc)
        message = _tail_text(self._tail) or "no message"
        error = None if status == 0 else f"{self.spec.kind} exited with status {status}: {message}"
        log.warning("collector %s stopped during the run: %s", self.spec.name, error or "exited")
        self.stream.close(error)

    def stop(self, close=True):
        """End the tool: SIGINT, as Ctrl-C would (pidstat and netqtop exit cleanly on it); vmstat has
        nothing to finish and gets SIGTERM."""
        self._stopping = True
        if self.proc is not None:
            procs.stop(self.proc, signal.SIGTERM if self.spec.kind == "vmstat" else signal.SIGINT, STOP_GRACE_S)
            for thread in self._threads:
                thread.join(5.0)
        if close:
            self.stream.close()


def _wait(proc, seconds, ended):
    """Wait for the tool to exit, at most `seconds`, returning early when `ended` is set."""
    deadline = time.monotonic() + seconds
    while proc.poll() is None:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or ended.wait(min(remaining, 0.2)):
            return


def _pick_target(spec, stream):
    pids = procs.find_processes(spec.target)
    if not pids:
        stream.close(f"no process named {spec.target}")
    return pids


def run_strace(spec, stream, seconds, ended):
    """strace -c -f on the busiest process named spec.target, for `seconds` or until `ended`; its whole
    output becomes the stream (held and sent as one batch when it closes)."""
    began = time.monotonic()
    pids = _pick_target(spec, stream)
    if not pids:
        return
    pid = (procs.busiest(pids) if len(pids) > 1 else None) or pids[0]
    # The window was planned to end inside the load: choosing the process (a 1 s CPU sample) comes out
    # of it rather than pushing its end past the load.
    seconds = max(MIN_WINDOW_S / 2, seconds - (time.monotonic() - began))
    argv = ["strace", "-c", "-f", "-p", str(pid)]
    if shutil.which("timeout"):
        # A watchdog independent of us: even if the agent is SIGKILLed, strace detaches in time.
        argv = ["timeout", "-s", "INT", "-k", "5", str(int(seconds) + 10)] + argv
    log.info("strace -c attached to %s (pid %d) for %gs", spec.target, pid, seconds)
    output = []  # strace -c prints a few hundred lines at most
    proc = procs.spawn(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    reader = start_pump(proc.stderr, stream, output, name="perflab-strace")
    _wait(proc, seconds, ended)
    # SIGINT to the top process only: timeout forwards it to strace, which detaches and prints.
    status = procs.stop(proc, signal.SIGINT, STRACE_DETACH_GRACE_S, group=False)
    reader.join(5.0)
    # An idle target yields "attached", "detached" and no table: that is a result, not a failure.
    attached = any(line.lstrip().startswith("% time") or line.endswith(" attached") for line in output)
    stream.close(None if attached else f"strace exited with status {status}: {_tail_text(output[-10:])}")


def run_perf(spec, stream, seconds, ended, tmp_path, on_profile):
    """perf record on every process named spec.target, then perf script, gzipped, handed to on_profile(path).
    perf's own messages are the stream (so a failure is visible on the run page)."""
    pids = _pick_target(spec, stream)
    if not pids:
        return
    data = tmp_path + ".data"
    record = ["perf", "record", "-F", "499", "-g", "-p", ",".join(str(p) for p in pids),
              "-o", data, "--", "sleep", f"{seconds:g}"]
    log.info("perf record on %s (pids %s) for %gs", spec.target, ",".join(str(p) for p in pids), seconds)
    tail = collections.deque(maxlen=10)
    proc = procs.spawn(record, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    reader = start_pump(proc.stdout, stream, tail, name="perflab-perf")
    _wait(proc, seconds + 30, ended)
    interrupted = proc.poll() is None
    # On SIGINT perf record stops sampling and still writes a complete file; it then exits with its
    # workload's status (sleep, killed by the signal), which is not a failure of the recording.
    status = procs.stop(proc, signal.SIGINT, 30.0, group=False)
    reader.join(5.0)
    recorded = os.path.exists(data) and os.path.getsize(data) > 0
    if not recorded or (status != 0 and not interrupted):
        stream.close(f"perf record exited with status {status}: {_tail_text(tail)}")
        _unlink(data)
        return
    script = procs.spawn(["perf", "script", "-i", data], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    errors = collections.deque(maxlen=10)
    err_reader = start_pump(script.stderr, None, errors, name="perflab-perf-script")
    gz_path = tmp_path + ".script.gz"
    killer = threading.Timer(PERF_SCRIPT_TIMEOUT_S, procs.signal_group, (script, signal.SIGKILL))
    killer.start()
    size = 0
    try:
        with gzip.open(gz_path, "wb", compresslevel=6) as out:
            for chunk in iter(lambda: script.stdout.read(65536), b""):
                size += len(chunk)
                out.write(chunk)
        status = script.wait()
    finally:
        killer.cancel()
        script.stdout.close()
        err_reader.join(5.0)
        procs.forget(script)
        _unlink(data)
    if status != 0 or not size:
        _unlink(gz_path)
        stream.close(f"perf script exited with status {status}: {_tail_text(errors)}" if status
                     else f"perf recorded no samples (was {spec.target} idle?)")
        return
    on_profile(gz_path)
    stream.close()


def _unlink(path):
    try:
        os.unlink(path)
    except OSError:
        pass


# ---------------------------------------------------------------- snapshots


def snapshot_config(path):
    """(bytes, None) or (None, reason): a config file as it was when the run started, token redacted."""
    try:
        with open(path, "rb") as f:
            data = f.read(CONFIG_MAX_BYTES + 1)
    except OSError as e:
        return None, e.strerror or str(e)
    if len(data) > CONFIG_MAX_BYTES:
        return None, f"larger than {CONFIG_MAX_BYTES} bytes"
    return redactor.data(data), None


def sysctl_path(key):
    """net.core.somaxconn -> /proc/sys/net/core/somaxconn. A key written with slashes keeps its dots,
    as sysctl(8) allows for names like net/ipv4/conf/eth0.100/rp_filter."""
    parts = key.split("/") if "/" in key else key.split(".")
    return os.path.join("/proc/sys", *[p for p in parts if p not in ("", ".", "..")])


def snapshot_sysctls(keys):
    """('key = value' lines, {key: reason}) as `sysctl -a` prints them, for the keys given."""
    lines, failed = [], {}
    for key in keys:
        try:
            with open(sysctl_path(key)) as f:
                value = " ".join(f.read().split())
        except OSError as e:
            failed[key] = e.strerror or str(e)
            continue
        lines.append(f"{key} = {value}")
    return "".join(line + "\n" for line in lines), failed
