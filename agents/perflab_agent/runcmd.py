"""`perflab-agent run -- CMD`: create a run, wait for the daemons, run the load, stream its output, finish.

Human output goes to stdout (progress, hosts joined, RPS, the run page); with --json stdout carries
only one {"run_id", "status"} object per run, and the load command's output goes to stderr.
"""

import collections
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid

from perflab_agent import procs
from perflab_agent.sender import Sender
from perflab_agent.spool import Spool
from perflab_agent.streams import Batcher, Limits, LineStream, start_pump
from perflab_agent.transport import NetworkError
from perflab_agent.util import format_duration, log, parse_duration, redactor

WRK_NAMES = ("wrk", "wrk2")
WRK_DEFAULT_DURATION_S = 10.0
PROGRESS_EVERY_S = 10.0
CALL_DEADLINE_S = 120.0
STATUS_WAIT_S = 15.0
# Well below the server's PERFLAB_RUN_SILENCE_S (600 s): a quiet load command is still alive.
LOAD_KEEPALIVE_S = 60.0
FINAL_STATUSES = ("complete", "partial", "failed")
_RPS = re.compile(r"^\s*Requests/sec:\s*([0-9.]+)")


# Other load generators whose output the server reads as the run's load summary (the parser kind is the name).
LOAD_NAMES = ("k6", "vegeta", "hey", "ab")


def is_wrk(argv):
    return any(os.path.basename(arg) in WRK_NAMES for arg in argv[:3])


def load_source(argv):
    """The stream source of a load command: "wrk", "k6", "vegeta", "hey", "ab", or "command"."""
    if is_wrk(argv):
        return "wrk"
    for arg in argv[:3]:
        name = os.path.basename(arg)
        if name in LOAD_NAMES:
            return name
    return "command"


def wrk_duration(argv):
    """Seconds of wrk's -d/--duration (10 s when absent, wrk's default); None for other commands."""
    if not is_wrk(argv):
        return None
    for index, arg in enumerate(argv):
        value = None
        if arg in ("-d", "--duration") and index + 1 < len(argv):
            value = argv[index + 1]
        elif arg.startswith("--duration="):
            value = arg.split("=", 1)[1]
        elif arg.startswith("-d") and len(arg) > 2 and not arg.startswith("--"):
            value = arg[2:]
        if value is not None:
            return parse_duration(value)
    return WRK_DEFAULT_DURATION_S


def load_argv(argv):
    """wrk under `stdbuf -oL`, so its lines reach us (and the live page) as they are printed."""
    if is_wrk(argv) and os.path.basename(argv[0]) != "stdbuf" and shutil.which("stdbuf"):
        return ["stdbuf", "-oL"] + list(argv)
    return list(argv)


def parse_rps(text):
    m = _RPS.match(text)
    return float(m.group(1)) if m else None


class Output:
    """Where the human-facing lines go: stdout normally, nowhere with --json (warnings use the log)."""

    def __init__(self, json_mode):
        self.json_mode = json_mode

    def say(self, text):
        if not self.json_mode:
            sys.stdout.write("perflab: " + redactor.text(text) + "\n")
            sys.stdout.flush()

    def load_line(self, text):
        stream = sys.stderr if self.json_mode else sys.stdout
        stream.write(text + "\n")
        stream.flush()


class RunCommand:
    def __init__(self, client, agent_id, state_dir, args):
        self.client = client
        self.agent_id = agent_id
        self.args = args
        self.out = Output(args.json)
        self.argv = [a for a in args.cmd]
        self.limits = Limits()
        # Its own spool, apart from a daemon's on the same host: each process owns its directory.
        self.spool = Spool(os.path.join(state_dir, "spool-run"), int(args.spool_max_mb * 1024 * 1024),
                           args.spool_max_age_h * 3600)
        self.batcher = Batcher(self.limits)
        self.sender = Sender(client, self.spool, agent_id, self.limits)
        self.source = load_source(self.argv)
        self.wait_for = [r.strip() for r in args.wait_for.split(",") if r.strip()] if args.wait_for else None

    @property
    def planned(self):
        """Runs planned: --repeat N, or --max N with --repeat auto."""
        return self.args.max if self.args.repeat == "auto" else self.args.repeat

    def main(self):
        self.batcher.start()
        self.sender.start()
        exit_code = 0
        try:
            for index in range(1, self.planned + 1):
                code = self.one_run(index)
                if code is None:
                    return 2
                exit_code = exit_code or code
                if self.args.repeat == "auto" and index >= 2 and self.decided(index):
                    break
                if index < self.planned and self.args.cooldown > 0:
                    self.out.say(f"cooldown {format_duration(self.args.cooldown)}")
                    time.sleep(self.args.cooldown)
            else:
                if self.args.repeat == "auto":
                    self.out.say(f"not decided after {self.planned} runs (--max {self.planned}); "
                                 f"{self.last_note or 'no verdict'}")
            return exit_code
        except (KeyboardInterrupt, procs.Shutdown):
            log.warning("interrupted")
            return 130
        finally:
            self.batcher.stop()
            self.sender.stop(0)
            procs.kill_all()
            self.spool.close()

    last_note = ""

    def decided(self, index):
        """Ask the server for the verdict on --metric after `index` runs, at this look's share of the
        false-positive rate (look and looks: the server spends alpha across the planned looks). True when
        decided: better, worse, equivalent (or up/down for a neutral metric)."""
        a = self.args
        query = {"baseline": a.against, "experiments": [a.experiment], "look": str(index - 1),
                 "looks": str(self.planned - 1)}
        try:
            resp = self._call("GET", f"/api/projects/{a.project}/compare", "verdict", query=query)
        except NetworkError as e:
            log.warning("could not ask for the verdict (%s); running on", e)
            return False
        if not resp.ok:
            log.warning("the server gave no verdict: %s; running on", resp.detail())
            return False
        doc = resp.json() or {}
        metric = next((m for m in doc.get("metrics") or [] if m.get("key") in (a.metric, "wrk." + a.metric)), None)
        if metric is None:
            log.warning("no %s in the comparison yet; running on", a.metric)
            return False
        verdict = (metric.get("verdict") or {}).get(a.experiment)
        delta = (metric.get("delta_pct") or {}).get(a.experiment)
        change = "" if delta is None else f" ({delta:+.1f}%)"
        if verdict in ("better", "worse", "equivalent", "increased", "decreased"):
            self.out.say(f"decided after {index} runs: {metric.get('key')} {verdict.replace('_', ' ')}{change} "
                         f"against {a.against!r}")
            return True
        detect = (metric.get("detectable_pct") or {}).get(a.experiment)
        need = (metric.get("runs_needed") or {}).get(a.experiment)
        self.last_note = "{} {}{}".format(metric.get("key"), (verdict or "no verdict").replace("_", " "), change)
        if detect is not None:
            self.last_note += f"; these runs detect about ±{detect:.1f}%"
        if need is not None:
            self.last_note += f"; about {need} more a side would decide"
        self.out.say(f"after {index} runs: {self.last_note}")
        return False

    def _label(self, index):
        if self.args.repeat == 1:
            return self.args.label or ""
        counter = f"run {index} of {self.planned}" if self.args.repeat != "auto" else f"run {index}, auto"
        return f"{self.args.label} ({counter})" if self.args.label else counter

    def _call(self, method, path, what, **kwargs):
        return self.client.call(method, path, deadline=time.monotonic() + CALL_DEADLINE_S, what=what, **kwargs)

    def one_run(self, index):
        """One repeat. Returns the load command's exit code, or None when the server refused the run."""
        a = self.args
        run_id = str(uuid.uuid4())
        if a.repeat == "auto" or a.repeat > 1:
            self.out.say(f"run {index} of {'up to ' if a.repeat == 'auto' else ''}{self.planned} of {a.experiment!r}")
        command_text = " ".join(shlex.quote(arg) for arg in self.argv)
        body = {"run_id": run_id, "project": a.project, "experiment": a.experiment, "label": self._label(index),
                "load_command": redactor.text(command_text), "wait_for_roles": self.wait_for,
                "hypothesis": redactor.text(a.hypothesis or "")}
        try:
            resp = self._call("POST", "/api/agent/runs", "create run", json_body=body)
        except NetworkError as e:
            log.error("cannot create the run: %s", e)
            return None
        if not resp.ok:
            log.error("the server refused the run: %s", resp.detail())
            return None
        doc = resp.json() or {}
        if doc.get("project") not in (None, a.project):
            log.error("the token belongs to project %r, not %r", doc.get("project"), a.project)
            return None
        run_url = f"{self.client.server}/runs/{run_id}"
        self.out.say(f"run {run_id} created: {run_url}")
        self._wait_for_daemons(run_id)
        self.spool.open_stream(run_id, "load", self.source, a.role)
        stream = LineStream(self.spool, run_id, "load", keepalive_s=LOAD_KEEPALIVE_S)
        self.batcher.add(stream)
        try:
            self._call("POST", f"/api/agent/runs/{run_id}/start", "start run", json_body={"started_at": time.time()})
        except NetworkError as e:
            log.warning("could not mark the run started (%s); running the load anyway", e)
        exit_code, rps, interrupted = self._run_load(stream)
        try:
            self._call("POST", f"/api/agent/runs/{run_id}/finish", "finish run",
                       json_body={"exit_code": exit_code, "ended_at": time.time()})
        except NetworkError as e:
            log.error("could not mark the run finished: %s", e)
        stream.done.wait(5.0)
        if not self.spool.wait_drained(run_id, min(a.flush_timeout, 10.0) if interrupted else a.flush_timeout):
            log.warning("%d batches of run %s are not delivered yet; they stay in %s and are sent by the next "
                        "`perflab-agent run` with this --state-dir", self.spool.pending(run_id), run_id,
                        self.spool.path)
        status = self._status(run_id)
        done = f"exit {exit_code}"
        if rps is not None:
            done += f", {rps:.2f} requests/sec"
        self.out.say(f"done: {done}; run {status}: {run_url}")
        if a.json:
            sys.stdout.write(json.dumps({"run_id": run_id, "status": status}) + "\n")
            sys.stdout.flush()
        if interrupted:
            raise KeyboardInterrupt()
        return exit_code

    def _status(self, run_id):
        """The run's status once the server has judged it (complete, partial, failed): the daemons
        close their streams a moment after the finish. After STATUS_WAIT_S, whatever it is then."""
        deadline = time.monotonic() + STATUS_WAIT_S
        status = "unknown"
        while True:
            try:
                resp = self.client.request("GET", f"/api/agent/runs/{run_id}", timeout=10)
                doc = resp.json() if resp.ok else None
                if isinstance(doc, dict) and doc.get("status"):
                    status = str(doc["status"])
            except NetworkError:
                pass
            if status in FINAL_STATUSES or time.monotonic() >= deadline:
                return status
            time.sleep(1.0)

    def _wait_for_daemons(self, run_id):
        """Until the expected daemons joined (their collectors run), at most --wait-timeout seconds."""
        deadline = time.monotonic() + self.args.wait_timeout
        seen, said_waiting, missing = {}, False, None
        while True:
            try:
                resp = self.client.request("GET", f"/api/agent/runs/{run_id}", timeout=10)
                doc = resp.json() if resp.ok else None
            except NetworkError as e:
                log.debug("run status: %s", e)
                doc = None
            if isinstance(doc, dict):
                for host in doc.get("hosts") or []:
                    key = host.get("agent_id") or host.get("hostname")
                    if seen.get(key) != host.get("state"):
                        seen[key] = host.get("state")
                        self.out.say("host {} ({}): {}".format(host.get("hostname"), host.get("role"), host.get("state")))
                missing = doc.get("missing_roles") or []
                if not missing:
                    if seen:
                        self.out.say(f"{len(seen)} host(s) joined")
                    return
                if not said_waiting:
                    self.out.say("waiting up to {} for: {}".format(format_duration(self.args.wait_timeout),
                                                              ", ".join(missing)))
                    said_waiting = True
            if time.monotonic() >= deadline:
                log.warning("still missing after %s: %s; starting anyway (the run will be marked partial)",
                            format_duration(self.args.wait_timeout), ", ".join(missing or ["(server unreachable)"]))
                return
            time.sleep(1.0)

    def _run_load(self, stream):
        """Run the command, streaming stdout+stderr. Returns (exit code, wrk's Requests/sec or None,
        whether the user interrupted it)."""
        argv = load_argv(self.argv)
        duration = wrk_duration(self.argv)
        self.out.say("running: {}".format(" ".join(shlex.quote(arg) for arg in self.argv)))
        rps = collections.deque(maxlen=1)

        class Tee:
            """Each output line: to the stream, to the terminal, and scanned for wrk's Requests/sec."""

            def __init__(self, out):
                self.out = out

            def append(self, text):
                self.out.load_line(text)
                value = parse_rps(text)
                if value is not None:
                    rps.append(value)

        try:
            proc = procs.spawn(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        except OSError as e:
            stream.add(f"perflab-agent: cannot run {argv[0]}: {e}")
            stream.close(f"cannot run {argv[0]}: {e}")
            log.error("cannot run %s: %s", argv[0], e)
            return 127, None, False
        reader = start_pump(proc.stdout, stream, Tee(self.out), name="perflab-load")
        started = time.monotonic()
        interrupted = False
        # About six progress lines per run, at most one every 10 s.
        every = min(PROGRESS_EVERY_S, max(1.0, duration / 6.0)) if duration else PROGRESS_EVERY_S
        try:
            while True:
                try:
                    proc.wait(every)
                    break
                except subprocess.TimeoutExpired:
                    elapsed = time.monotonic() - started
                    if duration:
                        self.out.say(f"{format_duration(elapsed)} elapsed, {format_duration(max(0.0, duration - elapsed))} remaining")
                    else:
                        self.out.say(f"{format_duration(elapsed)} elapsed")
        except (KeyboardInterrupt, procs.Shutdown):
            interrupted = True
            # SIGINT first: wrk prints its summary when interrupted.
            procs.stop(proc, signal.SIGINT, 5.0)
        reader.join(10.0)
        procs.forget(proc)
        code = proc.returncode
        exit_code = 128 - code if code < 0 else code
        stream.close("interrupted" if interrupted else None)
        return exit_code, (rps[0] if rps else None), interrupted
