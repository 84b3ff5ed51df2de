"""`perflab-agent daemon`: says hello, long-polls for runs, runs the collectors of each run and streams
them; `daemon --test` runs every collector once, briefly, and prints what it would send.

A daemon stopped in the middle of a run (systemd restart, SIGTERM) does not close its streams: the
next start finds them in the spool and resumes them (same seqs, same dropped counters) if the run is
still going, or closes them if it has ended.
"""

import collections
import gzip
import json
import os
import shutil
import socket
import sys
import tempfile
import threading
import time

from perflab_agent import __version__, facts, procs
from perflab_agent.clock import ClockEstimator
from perflab_agent.collectors import (
    SNAPSHOTS,
    SnapshotCollector,
    ToolCollector,
    capability,
    plan_windows,
    run_perf,
    run_strace,
    snapshot_config,
    snapshot_sysctls,
)
from perflab_agent.sender import Sender
from perflab_agent.streams import Batcher, Limits, LineStream
from perflab_agent.transport import NetworkError, Stopped
from perflab_agent.util import log, valid_run_id

# Collectors stop by themselves if the server never says the run ended (it may be gone for good).
MAX_RUN_S = 6 * 3600.0
# A run the server stops listing (without saying it ended) is ended after this long: a server
# restarting must not end a capture, and a deleted run must not capture forever.
MISSING_RUN_GRACE_S = 60.0
POLL_HTTP_MARGIN_S = 15.0
SHUTDOWN_DRAIN_S = 5.0
TEST_SECONDS = 3.0
TEST_WINDOW_S = 2.0
ENDED_STATES = ("ended", "complete", "partial", "failed")


def capabilities(specs):
    result = {}
    for spec in specs:
        available, reason = capability(spec)
        result[spec.name] = {"available": available} if available else {"available": False, "reason": reason}
    return result


def hello_body(agent_id, role, specs, host_facts):
    return {"agent_id": agent_id, "hostname": socket.gethostname(), "role": role, "version": __version__,
            "facts": host_facts, "capabilities": capabilities(specs), "collectors": [s.raw for s in specs]}


def artifact_upload(run_id, kind, name, role, data):
    """(path, query, body, content_encoding) of a config or sysctl snapshot."""
    query = {"kind": kind, "name": name, "role": role}
    if len(data) > 1024:
        return f"/api/agent/runs/{run_id}/artifacts", query, gzip.compress(data), "gzip"
    return f"/api/agent/runs/{run_id}/artifacts", query, data, None


def profile_query(role):
    return {"role": role, "name": "perf"}


class Daemon:
    def __init__(self, client, spool, agent_id, role, specs, config_files=(), sysctls=(),
                 poll_timeout=25.0, heartbeat_interval=10.0):
        self.client = client
        self.spool = spool
        self.agent_id = agent_id
        self.role = role
        self.specs = specs
        self.config_files = list(config_files)
        self.sysctls = list(sysctls)
        self.poll_timeout = poll_timeout
        self.heartbeat_interval = heartbeat_interval
        self.limits = Limits()
        self.batcher = Batcher(self.limits)
        self.sender = Sender(client, spool, agent_id, self.limits)
        self.stop_event = threading.Event()
        self.captures = {}
        # Runs whose capture finished: never captured again by this process (fresh seqs would collide).
        self.done_runs = collections.OrderedDict()
        # Run id -> when the server first stopped listing it (captures and leftovers from a restart).
        self.missing_since = {}
        self.leftovers = {run_id for run_id, _ in spool.open_streams()}
        self.clock = ClockEstimator()
        self.clock_offset = None
        self.clock_error = None
        self.usage = procs.SelfUsage()

    def run(self):
        self.batcher.start()
        self.sender.start()
        try:
            if not self._hello():
                return 2
            threading.Thread(target=self._heartbeats, name="perflab-heartbeat", daemon=True).start()
            self._poll_loop()
            return 0
        except (KeyboardInterrupt, procs.Shutdown, Stopped) as e:
            log.info("stopping (%s)", type(e).__name__)
            return 0
        finally:
            self._shutdown()

    # ---------------------------------------------------------------- server conversation

    def _hello(self):
        body = hello_body(self.agent_id, self.role, self.specs, facts.gather())
        t_send = time.time()
        resp = self.client.call("POST", "/api/agent/hello", json_body=body, stop=self.stop_event,
                                retry_auth=True, what="hello")
        t_recv = time.time()
        if not resp.ok:
            log.error("hello refused: %s", resp.detail())
            return False
        doc = resp.json() or {}
        self._note_server_time(doc.get("server_time"), t_send, t_recv)
        log.info("connected to %s: project %s, host %s, role %s; collectors: %s", self.client.server,
                 doc.get("project"), doc.get("host_id"), self.role,
                 ", ".join(s.raw for s in self.specs) or "none")
        return True

    def _note_server_time(self, server_time, t_send, t_recv):
        # Only for answers that are not held back (not the long poll): the server's clock is read
        # somewhere within the round trip.
        self.clock.add(server_time, t_send, t_recv)
        self.clock_offset, self.clock_error = self.clock.estimate()

    def _heartbeats(self):
        while not self.stop_event.wait(self.heartbeat_interval):
            body = {"agent_id": self.agent_id}
            body.update(self.spool.stats())
            body.update({"cpu_pct": self.usage.cpu_pct(), "rss_kb": self.usage.rss_kb(),
                         "clock_offset_s": self.clock_offset, "clock_error_s": self.clock_error})
            t_send = time.time()
            try:
                resp = self.client.request("POST", "/api/agent/heartbeat", json_body=body, timeout=10)
            except NetworkError as e:
                log.debug("heartbeat: %s", e)
                continue
            if resp.ok:
                self._note_server_time((resp.json() or {}).get("server_time"), t_send, time.time())
            else:
                log.debug("heartbeat: %s", resp.detail())

    def _poll_loop(self):
        previous = None
        while not self.stop_event.is_set():
            started = time.monotonic()
            query = {"agent_id": self.agent_id, "timeout": int(self.poll_timeout)}
            if previous is not None:
                # What we already know: the server holds its answer until something differs from it.
                query["known"] = known_runs(previous)
            resp = self.client.call("GET", "/api/agent/poll", query=query,
                                    timeout=self.poll_timeout + POLL_HTTP_MARGIN_S, stop=self.stop_event,
                                    retry_auth=True, what="poll")
            if resp.status == 404:
                log.warning("the server does not know this agent any more; saying hello again")
                if not self._hello():
                    self.stop_event.wait(30)
                continue
            if not resp.ok:
                log.error("poll: %s", resp.detail())
                self.stop_event.wait(10)
                continue
            runs = (resp.json() or {}).get("runs")
            runs = runs if isinstance(runs, list) else []
            self._reconcile(runs)
            self._housekeeping()
            # A server that answers at once while a run is active (rather than when something
            # changed) must not make us spin: an unchanged answer is asked again a second later.
            if runs == previous:
                self.stop_event.wait(max(0.0, 1.0 - (time.monotonic() - started)))
            previous = runs

    # ---------------------------------------------------------------- runs

    def _reconcile(self, runs):
        listed = {}
        for run in runs:
            if isinstance(run, dict) and valid_run_id(run.get("run_id")):
                listed[run["run_id"]] = run
        now = time.monotonic()
        for run_id, run in listed.items():
            self.missing_since.pop(run_id, None)
            state = run.get("state")
            capture = self.captures.get(run_id)
            if state in ENDED_STATES:
                if capture is not None:
                    capture.ended.set()
                elif run_id in self.leftovers:
                    self._close_leftovers(run_id, "the agent was not running when the run ended")
            elif capture is None and run_id not in self.done_runs:
                self.leftovers.discard(run_id)
                capture = RunCapture(self, run_id, run.get("experiment"))
                self.captures[run_id] = capture
                capture.start()
            if capture is not None and state == "running":
                load_s = run.get("load_seconds")
                if isinstance(load_s, (int, float)) and load_s > 0:
                    capture.load_seconds = float(load_s)
                capture.running.set()
        for run_id in list(self.captures) + list(self.leftovers):
            if run_id in listed:
                continue
            first = self.missing_since.setdefault(run_id, now)
            if now - first < MISSING_RUN_GRACE_S:
                continue
            log.warning("run %s is no longer listed by the server; ending its capture", run_id)
            if run_id in self.captures:
                self.captures[run_id].ended.set()
            else:
                self._close_leftovers(run_id, "the run disappeared while the agent was not running")

    def _close_leftovers(self, run_id, error):
        """Streams a previous process of this daemon left open for a run that is over: close them."""
        self.leftovers.discard(run_id)
        self.missing_since.pop(run_id, None)
        for leftover_run, name in self.spool.open_streams():
            if leftover_run == run_id:
                log.info("closing stream %s of run %s left open by a previous agent process", name, run_id)
                try:
                    self.spool.seal(run_id, name, [], closed=True, error=error)
                except OSError as e:
                    log.error("cannot close stream %s of run %s: %s", name, run_id, e)
        self.done_runs[run_id] = True

    def _housekeeping(self):
        for run_id, capture in list(self.captures.items()):
            if not capture.thread.is_alive():
                del self.captures[run_id]
                self.missing_since.pop(run_id, None)
                self.done_runs[run_id] = True
        while len(self.done_runs) > 1000:
            self.done_runs.popitem(last=False)
        for run_id in self.done_runs:
            if run_id not in self.captures and self.spool.pending(run_id) == 0:
                self.spool.forget_run(run_id)

    def _shutdown(self):
        self.stop_event.set()
        for capture in self.captures.values():
            capture.suspend = True
            capture.ended.set()
        for capture in self.captures.values():
            capture.thread.join(15.0)
        self.batcher.stop()
        self.sender.stop(SHUTDOWN_DRAIN_S)
        procs.kill_all()
        left = self.spool.pending()
        if left:
            log.info("%d batches/uploads stay in %s for the next start", left, self.spool.path)
        self.spool.close()


class RunCapture:
    """The collectors of one run on this host, from join to the closing batches."""

    def __init__(self, daemon, run_id, experiment):
        self.daemon = daemon
        self.run_id = run_id
        self.experiment = experiment
        self.running = threading.Event()
        # How long the load lasts (the server reads it from wrk's -d), or None when unknown.
        self.load_seconds = None
        self.ended = threading.Event()
        # Set when the daemon stops mid-run: collectors stop but streams stay open, to be resumed.
        self.suspend = False
        self.streams = []
        self.thread = threading.Thread(target=self._main, name="perflab-run-" + run_id[:8], daemon=True)

    def start(self):
        self.thread.start()

    def _main(self):
        try:
            self._capture()
        except Exception:  # noqa: BLE001 - whatever broke, the run's streams must still close
            log.exception("run %s: capture failed", self.run_id)
            for stream in self.streams:
                stream.close("agent error")

    def _capture(self):
        d = self.daemon
        resumed = any(d.spool.is_closed(self.run_id, spec.name) is not None for spec in d.specs)
        log.info("run %s (%s): %s collectors", self.run_id, self.experiment or "?",
                 "resuming" if resumed else "starting")
        names, failed, tools, windows = [], {}, [], []
        for spec in d.specs:
            available, reason = capability(spec)
            if not available:
                failed[spec.name] = reason
                continue
            if d.spool.open_stream(self.run_id, spec.name, spec.kind, d.role):
                continue  # finished by an earlier process of this daemon (a strace window that ran)
            stream = LineStream(d.spool, self.run_id, spec.name, hold=spec.kind == "strace-c")
            self.streams.append(stream)
            d.batcher.add(stream)
            if spec.windowed:
                windows.append((spec, stream))
                names.append(spec.name)
                continue
            collector = (SnapshotCollector if spec.kind in SNAPSHOTS else ToolCollector)(spec, stream)
            try:
                collector.start()
            except OSError as e:
                failed[spec.name] = f"cannot start {spec.kind}: {e}"
                stream.close(failed[spec.name])
                continue
            tools.append(collector)
            names.append(spec.name)
        if not resumed:
            failed.update(self._snapshots())
        self._join(names, failed)
        window_thread = threading.Thread(target=self._windows, args=(windows,), daemon=True,
                                         name="perflab-window-" + self.run_id[:8])
        window_thread.start()
        if not self.ended.wait(MAX_RUN_S):
            log.warning("run %s: still not ended after %ds; stopping its collectors", self.run_id, MAX_RUN_S)
            self.ended.set()
        for collector in tools:
            collector.stop(close=not self.suspend)
        window_thread.join()
        if self.suspend:
            return
        for stream in self.streams:
            stream.close()
        for stream in self.streams:
            stream.done.wait(10.0)
        log.info("run %s ended: streams closed", self.run_id)

    def _snapshots(self):
        """Config files and sysctls as they were when the run started, queued as uploads."""
        d, failed = self.daemon, {}
        for path in d.config_files:
            data, reason = snapshot_config(path)
            if data is None:
                failed["config:" + path] = reason
                log.warning("run %s: config file %s not captured: %s", self.run_id, path, reason)
                continue
            url, query, body, encoding = artifact_upload(self.run_id, "config", path, d.role, data)
            d.spool.add_upload(url, query, body=body, content_encoding=encoding)
        if d.sysctls:
            text, errors = snapshot_sysctls(d.sysctls)
            for key, reason in errors.items():
                failed["sysctl:" + key] = reason
            if text:
                url, query, body, encoding = artifact_upload(self.run_id, "sysctl", "sysctl", d.role,
                                                             text.encode("utf-8"))
                d.spool.add_upload(url, query, body=body, content_encoding=encoding)
        return failed

    def _join(self, names, failed):
        d = self.daemon
        body = {"agent_id": d.agent_id, "role": d.role, "streams": names, "failed": failed}
        try:
            resp = d.client.call("POST", f"/api/agent/runs/{self.run_id}/join", json_body=body,
                                 stop=self.ended, retry_auth=True, what=f"join run {self.run_id}")
        except Stopped:
            return
        if resp.ok:
            log.info("run %s: joined with %s%s", self.run_id, ", ".join(names) or "no streams",
                     "; unavailable: {}".format(", ".join(sorted(failed))) if failed else "")
        elif resp.status == 404:
            log.warning("run %s: the server does not know it (%s)", self.run_id, resp.detail())
            self.ended.set()
        else:
            log.error("run %s: join refused: %s", self.run_id, resp.detail())

    def _windows(self, windows):
        """strace and perf windows start together once the load has settled and end inside the load
        (collectors.plan_windows): one after the other, perf script's seconds pushed strace past a short
        load and it traced an idle process."""
        if not windows:
            return
        while not self.running.is_set() and not self.ended.wait(0.2):
            pass
        started = time.monotonic()
        start_s, plan = plan_windows([spec for spec, _ in windows], self.load_seconds)
        streams = {spec.name: stream for spec, stream in windows}
        if not self.ended.is_set():
            self.ended.wait(max(0.0, start_s - (time.monotonic() - started)))
        threads = []
        for spec, seconds, note in plan:
            stream = streams[spec.name]
            if self.ended.is_set():
                if not self.suspend:
                    stream.close(f"the run ended before the {spec.kind} window started")
                continue
            if seconds is None:
                log.warning("run %s: %s", self.run_id, note)
                stream.close(note)
                continue
            if note:
                log.info("run %s: %s", self.run_id, note)
            thread = threading.Thread(target=self._window, args=(spec, stream, seconds), daemon=True,
                                      name="perflab-" + spec.name[:20])
            thread.start()
            threads.append(thread)
        for thread in threads:
            thread.join()

    def _window(self, spec, stream, seconds):
        try:
            if spec.kind == "perf":
                tmp = self.daemon.spool.tmp_path(f"perf-{self.run_id}-{os.getpid()}")
                run_perf(spec, stream, seconds, self.ended, tmp, self._queue_profile)
            else:
                run_strace(spec, stream, seconds, self.ended)
        except Exception as e:  # noqa: BLE001 - one failed window must not stop the others
            log.exception("run %s: %s failed", self.run_id, spec.name)
            stream.close(f"{spec.kind} failed: {e}")

    def _queue_profile(self, path):
        d = self.daemon
        d.spool.add_upload(f"/api/runs/{self.run_id}/profiles", profile_query(d.role), body_file=path)


def known_runs(runs):
    """The poll answer in the compact form the server compares against: "run_id:state,..." sorted."""
    pairs = sorted("{}:{}".format(r.get("run_id"), r.get("state")) for r in runs if isinstance(r, dict))
    return ",".join(pairs)


# ---------------------------------------------------------------- daemon --test


class MemorySink:
    """Stands in for the spool in `daemon --test`: keeps sealed batches to print them."""

    def __init__(self):
        self.batches = []
        self._seq = {}

    def seal(self, run_id, name, lines, closed=False, error=None):
        self._seq[name] = self._seq.get(name, 0) + 1
        self.batches.append({"run_id": run_id, "stream": name, "source": name.split(":")[0], "role": "",
                             "seq": self._seq[name], "lines": lines, "dropped": 0, "closed": closed,
                             "error": error})
        return self._seq[name]

    def add_dropped(self, run_id, name, count):
        pass


def run_test(agent_id, role, specs, config_files=(), sysctls=(), out=None):
    """Run each collector once (a few seconds), print every request the daemon would make, send nothing.
    Returns 0 when every requested collector and snapshot worked, else 1."""
    out = out or sys.stdout
    run_id = "RUN_ID"

    def emit(doc):
        out.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        out.flush()

    emit({"would_send": "POST /api/agent/hello", "body": hello_body(agent_id, role, specs, facts.gather())})
    sink, problems = MemorySink(), []
    tools, threads, streams = [], [], []
    window_ended = threading.Event()
    workdir = tempfile.mkdtemp(prefix="perflab-agent-test-")

    def show_profile(path):
        with gzip.open(path, "rt", errors="replace") as f:
            head = [line.rstrip("\n") for _, line in zip(range(8), f)]
        emit({"would_send": f"POST /api/runs/{run_id}/profiles", "query": profile_query(role),
              "bytes": os.path.getsize(path), "first_lines": head})

    try:
        for spec in specs:
            available, reason = capability(spec)
            if not available:
                problems.append(f"{spec.name}: {reason}")
                continue
            stream = LineStream(sink, run_id, spec.name, hold=spec.kind == "strace-c")
            streams.append(stream)
            if spec.kind == "perf":
                args = (spec, stream, min(spec.seconds, TEST_WINDOW_S), window_ended,
                        os.path.join(workdir, "perf"), show_profile)
                threads.append(threading.Thread(target=run_perf, args=args, daemon=True))
            elif spec.kind == "strace-c":
                args = (spec, stream, min(spec.seconds, TEST_WINDOW_S), window_ended)
                threads.append(threading.Thread(target=run_strace, args=args, daemon=True))
            else:
                collector = (SnapshotCollector if spec.kind in SNAPSHOTS else ToolCollector)(spec, stream)
                collector.start()
                tools.append(collector)
        for thread in threads:
            thread.start()
        time.sleep(TEST_SECONDS)
        for collector in tools:
            collector.stop()
        for thread in threads:
            thread.join()
        limits = Limits()
        for stream in streams:
            stream.close()
            stream.seal(limits)
        for batch in sink.batches:
            batch["role"] = role
            if batch["error"]:
                problems.append("{}: {}".format(batch["stream"], batch["error"]))
        for stream in streams:
            if not stream.lines_seen and stream.name.split(":")[0] != "perf":
                problems.append(f"{stream.name}: printed nothing")
        if sink.batches:
            emit({"would_send": "POST /api/ingest/batches", "body": {"agent_id": agent_id, "batches": sink.batches}})
        for path in config_files:
            data, reason = snapshot_config(path)
            if data is None:
                problems.append(f"config {path}: {reason}")
                continue
            emit({"would_send": f"POST /api/agent/runs/{run_id}/artifacts",
                  "query": {"kind": "config", "name": path, "role": role},
                  "bytes": len(data), "content": data.decode("utf-8", "replace")[:4000]})
        if sysctls:
            text, errors = snapshot_sysctls(sysctls)
            problems.extend("sysctl {}: {}".format(*item) for item in sorted(errors.items()))
            emit({"would_send": f"POST /api/agent/runs/{run_id}/artifacts",
                  "query": {"kind": "sysctl", "name": "sysctl", "role": role}, "content": text})
        usage = procs.SelfUsage()
        emit({"would_send": "POST /api/agent/heartbeat",
              "body": {"agent_id": agent_id, "spool_bytes": 0, "spool_batches": 0, "dropped_lines": 0,
                       "rejected_batches": 0, "cpu_pct": usage.cpu_pct(), "rss_kb": usage.rss_kb(),
                       "clock_offset_s": None}})
    finally:
        window_ended.set()
        procs.kill_all()
        shutil.rmtree(workdir, ignore_errors=True)
    for problem in problems:
        sys.stderr.write(f"perflab-agent daemon --test: {problem}\n")
    sys.stderr.write(f"perflab-agent daemon --test: {len(specs)} collectors, {len(problems)} problems; "
                     "nothing was sent\n")
    return 1 if problems else 0
