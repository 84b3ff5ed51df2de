"""An in-process perflab server speaking docs/protocol.md, to test the agent without the real backend.

It keeps what a real server keeps (batches deduplicated on (agent, run, stream, seq) with parts
assembled, hosts, runs, artifacts, profiles, heartbeats), records every request as it arrived (to
prove the token never leaks), and misbehaves on demand: any status with Retry-After, 413 above a body
size, 422 for chosen lines, dropped connections, latency.

    with FakeServer() as server:
        server.fail(503, retry_after=1, path="/api/ingest", count=3)
        run_id = server.create_run(state="running")
        ...
        server.lines(run_id, "vmstat")
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import threading
import time
import urllib.parse
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

TOKEN = "plb_fake_7f3c9e1d2b4a6f8e0c1d3b5a7f9e2c4d"
PROJECT = "demo"
ONLINE_S = 60.0
POLL_MAX_S = 30.0


@dataclass
class Recorded:
    """A request as it reached the server (Authorization header left out on purpose)."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    status: int = 0
    at: float = field(default_factory=time.time)

    def text(self) -> str:
        """Everything but the Authorization header, for leak checks."""
        return "{} {}?{}\n{}\n{}".format(self.method, self.path, urllib.parse.urlencode(self.query, doseq=True),
                                     json.dumps(self.headers), self.body.decode("utf-8", "replace"))


@dataclass
class Fault:
    status: int
    path: str
    remaining: int | None
    retry_after: float | None = None
    close: bool = False


class _Reply(Exception):
    def __init__(self, status: int, doc: Any = None, headers: dict[str, str] | None = None):
        self.status, self.doc, self.headers = status, doc, headers or {}


class FakeServer:
    def __init__(self, token: str = TOKEN, project: str = PROJECT):
        self.token = token
        self.project = project
        self.cond = threading.Condition()
        self.requests: list[Recorded] = []
        self.faults: list[Fault] = []
        self.latency = 0.0
        self.latency_path = ""
        self.max_body: int | None = None
        self.reject_text: str | None = None
        self.hosts: dict[str, dict[str, Any]] = {}
        self.heartbeats: list[dict[str, Any]] = []
        self.runs: dict[str, dict[str, Any]] = {}
        # (agent, run, stream) -> seq -> batch, as committed
        self.chunks: dict[tuple[str, str, str], dict[int, dict[str, Any]]] = {}
        self.deliveries: list[dict[str, Any]] = []  # every batch received, duplicates included
        self._parts: dict[tuple[str, str, str, int, int], dict[int, dict[str, Any]]] = {}
        self.artifacts: list[dict[str, Any]] = []
        self.profiles: list[dict[str, Any]] = []
        self.imports: list[dict[str, Any]] = []
        # What the import answers per file, when a test needs the real server's parts (one per tool output).
        self.import_files: list[dict[str, Any]] | None = None
        self.compare_response: dict[str, Any] | None = None
        self.compare_queries: list[dict[str, list[str]]] = []
        self._seen_views: dict[str, str] = {}
        self._httpd: ThreadingHTTPServer | None = None

    # ---------------------------------------------------------------- lifecycle

    def start(self) -> FakeServer:
        app = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                app._handle(self)

            def do_POST(self) -> None:
                app._handle(self)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._httpd:
            self._httpd.shutdown()
            self._httpd.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._httpd
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    # ---------------------------------------------------------------- misbehaviour

    def fail(self, status: int = 503, path: str = "/", count: int | None = None,
             retry_after: float | None = None, close: bool = False) -> None:
        """Answer `status` (or close the connection without answering) to requests under `path`,
        `count` times (None: until clear_faults)."""
        with self.cond:
            self.faults.append(Fault(status, path, count, retry_after, close))

    def clear_faults(self) -> None:
        with self.cond:
            self.faults.clear()

    # ---------------------------------------------------------------- test-side helpers

    def create_run(self, experiment: str = "default", wait_for_roles: list[str] | None = None,
                   state: str = "running", load_seconds: float | None = None) -> str:
        """A run as if `perflab-agent run` had created (and started) it; `load_seconds` as the server
        reads it from a wrk load command."""
        run_id = str(uuid.uuid4())
        with self.cond:
            self.runs[run_id] = self._new_run(run_id, {"experiment": experiment, "wait_for_roles": wait_for_roles})
            self.runs[run_id]["state"] = state
            self.runs[run_id]["load_seconds"] = load_seconds
            self.cond.notify_all()
        return run_id

    def set_state(self, run_id: str, state: str) -> None:
        """waiting -> running (as `run` does when it starts the load) -> ended (when it finishes)."""
        with self.cond:
            self.runs[run_id]["state"] = state
            self.cond.notify_all()

    def end_run(self, run_id: str) -> None:
        self.set_state(run_id, "ended")

    def joined(self, run_id: str) -> dict[str, Any]:
        """agent_id -> the join request of each host that joined the run."""
        with self.cond:
            return dict(self.runs[run_id]["joined"])

    def batches(self, run_id: str, stream: str) -> list[dict[str, Any]]:
        """Committed batches of a stream (any agent), in seq order."""
        with self.cond:
            found = [b for (agent, run, name), seqs in self.chunks.items() if run == run_id and name == stream
                     for b in seqs.values()]
        return sorted(found, key=lambda b: b["seq"])

    def lines(self, run_id: str, stream: str) -> list[list[Any]]:
        return [line for batch in self.batches(run_id, stream) for line in batch["lines"]]

    def stream_closed(self, run_id: str, stream: str) -> bool:
        return any(b.get("closed") for b in self.batches(run_id, stream))

    def wait_for(self, predicate: Callable[[], Any], timeout: float = 30.0, what: str = "condition") -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
            time.sleep(0.1)

    def recorded(self, path_prefix: str = "") -> list[Recorded]:
        with self.cond:
            return [r for r in self.requests if r.path.startswith(path_prefix)]

    # ---------------------------------------------------------------- HTTP plumbing

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        parsed = urllib.parse.urlsplit(h.path)
        path, query = parsed.path, urllib.parse.parse_qs(parsed.query)
        raw = h.rfile.read(int(h.headers.get("Content-Length") or 0))
        headers = {k: v for k, v in h.headers.items() if k.lower() != "authorization"}
        try:
            body = gzip.decompress(raw) if h.headers.get("Content-Encoding") == "gzip" else raw
        except OSError:
            body = raw
        rec = Recorded(h.command, path, query, headers, body)
        with self.cond:
            self.requests.append(rec)
            fault = next((f for f in self.faults if path.startswith(f.path) and f.remaining != 0), None)
            if fault and fault.remaining is not None:
                fault.remaining -= 1
            latency = self.latency if path.startswith(self.latency_path) else 0.0
        if latency:
            time.sleep(latency)
        if fault and fault.close:
            h.close_connection = True
            rec.status = -1
            return
        try:
            if fault:
                extra = {"Retry-After": f"{fault.retry_after:g}"} if fault.retry_after is not None else {}
                raise _Reply(fault.status, {"error": "injected", "detail": "fault injected by the test"}, extra)
            if h.headers.get("Authorization") != "Bearer " + self.token:
                raise _Reply(401, {"error": "unauthorized", "detail": "missing or invalid token"})
            if any("token" in k.lower() for k in query):
                raise _Reply(400, {"error": "bad_request", "detail": "tokens are not accepted in URLs"})
            if self.max_body is not None and len(body) > self.max_body:
                raise _Reply(413, {"error": "payload_too_large", "detail": f"body over {self.max_body} bytes"})
            status, doc = self._route(h.command, path, query, body)
            raise _Reply(status, doc)
        except _Reply as reply:
            rec.status = reply.status
            data = json.dumps(reply.doc).encode()
            h.send_response(reply.status)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(data)))
            for key, value in reply.headers.items():
                h.send_header(key, value)
            h.end_headers()
            try:
                h.wfile.write(data)
            except OSError:
                pass  # the agent gave up waiting (or was stopped): nothing to answer to

    def _route(self, method: str, path: str, query: dict[str, list[str]], body: bytes) -> tuple[int, Any]:
        doc: Any = None
        if body and not path.endswith(("/artifacts", "/profiles")):
            try:
                doc = json.loads(body)
            except ValueError:
                raise _Reply(400, {"error": "bad_request", "detail": "body is not JSON"})
        routes: list[tuple[str, str, Callable[..., tuple[int, Any]]]] = [
            ("POST", r"/api/agent/hello", self._hello),
            ("GET", r"/api/agent/poll", self._poll),
            ("POST", r"/api/agent/heartbeat", self._heartbeat),
            ("POST", r"/api/agent/runs", self._create_run),
            ("GET", r"/api/agent/runs/(?P<run>[^/]+)", self._run_status),
            ("POST", r"/api/agent/runs/(?P<run>[^/]+)/join", self._join),
            ("POST", r"/api/agent/runs/(?P<run>[^/]+)/start", self._start),
            ("POST", r"/api/agent/runs/(?P<run>[^/]+)/finish", self._finish),
            ("POST", r"/api/agent/runs/(?P<run>[^/]+)/artifacts", self._artifact),
            ("POST", r"/api/runs/(?P<run>[^/]+)/profiles", self._profile),
            ("POST", r"/api/ingest/batches", self._ingest),
            ("POST", r"/api/projects/(?P<project>[^/]+)/imports", self._import),
            ("GET", r"/api/projects/(?P<project>[^/]+)/compare", self._compare),
        ]
        for route_method, pattern, handler in routes:
            m = re.fullmatch(pattern, path)
            if m and method == route_method:
                with self.cond:
                    result = handler(doc=doc, body=body, query=query, **m.groupdict())
                    self.cond.notify_all()
                return result
        raise _Reply(404, {"error": "not_found", "detail": f"no route {method} {path}"})

    # ---------------------------------------------------------------- endpoints (called under self.cond)

    def _run(self, run_id: str) -> dict[str, Any]:
        run = self.runs.get(run_id)
        if run is None:
            raise _Reply(404, {"error": "not_found", "detail": f"no run {run_id} in this token's project"})
        return run

    def _new_run(self, run_id: str, doc: dict[str, Any]) -> dict[str, Any]:
        return {"run_id": run_id, "experiment": doc.get("experiment"), "label": doc.get("label", ""),
                "wait_for_roles": doc.get("wait_for_roles"), "load_command": doc.get("load_command", ""),
                "state": "waiting", "joined": {}, "exit_code": None, "created": doc}

    def _seen(self, agent_id: str) -> None:
        if agent_id in self.hosts:
            self.hosts[agent_id]["last_seen"] = time.monotonic()

    def _hello(self, doc: dict[str, Any], **_: Any) -> tuple[int, Any]:
        if not isinstance(doc, dict) or not doc.get("agent_id") or not doc.get("role"):
            raise _Reply(422, {"error": "invalid", "detail": "agent_id and role are required"})
        self.hosts[doc["agent_id"]] = dict(doc, last_seen=time.monotonic(), host_id=len(self.hosts) + 1)
        return 200, {"host_id": self.hosts[doc["agent_id"]]["host_id"], "project": self.project,
                     "server_time": time.time()}

    def _view(self, agent_id: str) -> list[dict[str, Any]]:
        role = self.hosts.get(agent_id, {}).get("role")
        view = []
        for run in self.runs.values():
            wanted = run["wait_for_roles"] is None or role in run["wait_for_roles"]
            joined = agent_id in run["joined"]
            if (run["state"] in ("waiting", "running") and wanted) or (run["state"] == "ended" and joined
                                                                       and not self._closed_all(run, agent_id)):
                view.append({"run_id": run["run_id"], "experiment": run["experiment"], "state": run["state"],
                             "wait_for_roles": run["wait_for_roles"] or [],
                             "load_seconds": run.get("load_seconds")})
        return view

    def _closed_all(self, run: dict[str, Any], agent_id: str) -> bool:
        names = run["joined"].get(agent_id, {}).get("streams", [])
        return all(any(b.get("closed") for b in self.chunks.get((agent_id, run["run_id"], n), {}).values())
                   for n in names)

    def _poll(self, query: dict[str, list[str]], **_: Any) -> tuple[int, Any]:
        agent_id = (query.get("agent_id") or [""])[0]
        if agent_id not in self.hosts:
            raise _Reply(404, {"error": "not_found", "detail": "agent has not said hello"})
        timeout = min(float((query.get("timeout") or ["25"])[0]), POLL_MAX_S)
        deadline = time.monotonic() + timeout
        while True:
            self._seen(agent_id)
            view = self._view(agent_id)
            key = json.dumps(view, sort_keys=True)
            if key != self._seen_views.get(agent_id) or time.monotonic() >= deadline:
                self._seen_views[agent_id] = key
                return 200, {"server_time": time.time(), "runs": view}
            self.cond.wait(min(0.5, max(0.01, deadline - time.monotonic())))

    def _heartbeat(self, doc: dict[str, Any], **_: Any) -> tuple[int, Any]:
        self.heartbeats.append(doc)
        self._seen(doc.get("agent_id", ""))
        return 200, {"server_time": time.time()}

    def _create_run(self, doc: dict[str, Any], **_: Any) -> tuple[int, Any]:
        try:
            run_id = str(uuid.UUID(doc["run_id"]))
        except (KeyError, TypeError, ValueError):
            raise _Reply(422, {"error": "invalid", "detail": "run_id must be a uuid"})
        if doc.get("project") not in (None, self.project):
            raise _Reply(409, {"error": "conflict", "detail": "this token belongs to project {!r}, not {!r}".format(self.project, doc.get("project"))})
        created = run_id not in self.runs
        if created:
            self.runs[run_id] = self._new_run(run_id, doc)
        run = self.runs[run_id]
        return (201 if created else 200), {"run_id": run_id, "project": self.project,
                                           "experiment": run["experiment"], "status": self._status(run),
                                           "url": f"{self.url}/runs/{run_id}"}

    def _status(self, run: dict[str, Any]) -> str:
        if run["state"] != "ended":
            return {"waiting": "pending"}.get(run["state"], run["state"])
        return "complete" if all(self._closed_all(run, a) for a in run["joined"]) else "running"

    def _run_status(self, run: str, **_: Any) -> tuple[int, Any]:
        r = self._run(run)
        joined_roles = {j["role"] for j in r["joined"].values()}
        if r["wait_for_roles"] is None:
            now = time.monotonic()
            expected = {h["role"] for h in self.hosts.values() if now - h["last_seen"] < ONLINE_S}
        else:
            expected = set(r["wait_for_roles"])
        hosts = [{"agent_id": a, "hostname": self.hosts.get(a, {}).get("hostname", "?"), "role": j["role"],
                  "state": "joined"} for a, j in r["joined"].items()]
        return 200, {"run_id": run, "status": self._status(r), "status_reasons": [], "hosts": hosts,
                     "wait_for_roles": r["wait_for_roles"] or [], "missing_roles": sorted(expected - joined_roles)}

    def _join(self, run: str, doc: dict[str, Any], **_: Any) -> tuple[int, Any]:
        self._run(run)["joined"][doc["agent_id"]] = doc
        return 200, {"ok": True}

    def _start(self, run: str, **_: Any) -> tuple[int, Any]:
        self._run(run)["state"] = "running"
        return 200, {"ok": True}

    def _finish(self, run: str, doc: dict[str, Any], **_: Any) -> tuple[int, Any]:
        r = self._run(run)
        r["state"], r["exit_code"] = "ended", doc.get("exit_code")
        return 200, {"ok": True}

    def _artifact(self, run: str, body: bytes, query: dict[str, list[str]], **_: Any) -> tuple[int, Any]:
        self._run(run)
        self.artifacts.append({"run_id": run, "kind": query["kind"][0], "name": query["name"][0],
                               "role": (query.get("role") or [""])[0], "body": body})
        return 201, {"artifact_id": len(self.artifacts)}

    def _profile(self, run: str, body: bytes, query: dict[str, list[str]], **_: Any) -> tuple[int, Any]:
        self._run(run)
        data = gzip.decompress(body) if body[:2] == b"\x1f\x8b" else body
        samples = [s for s in data.decode("utf-8", "replace").split("\n\n") if s.strip()]
        self.profiles.append({"run_id": run, "role": (query.get("role") or [""])[0],
                              "name": (query.get("name") or [""])[0], "unit": (query.get("unit") or [None])[0],
                              "data": data})
        return 201, {"profile_id": len(self.profiles), "format": "perf-script", "unit": "samples",
                     "total": len(samples), "frames": sum(s.count("\n") for s in samples), "lossy": False}

    def _ingest(self, doc: dict[str, Any], **_: Any) -> tuple[int, Any]:
        if not isinstance(doc, dict) or not isinstance(doc.get("batches"), list) or not doc.get("agent_id"):
            raise _Reply(422, {"error": "invalid", "detail": "agent_id and batches are required"})
        agent = doc["agent_id"]
        for b in doc["batches"]:
            problem = _batch_problem(b)
            if problem:
                raise _Reply(422, {"error": "invalid", "detail": problem})
            if self.reject_text and any(self.reject_text in line[2] for line in b["lines"]):
                raise _Reply(422, {"error": "invalid", "detail": "line rejected by the test"})
            self._run(b["run_id"])
        acked = []
        for b in doc["batches"]:
            self.deliveries.append(b)
            key = (agent, b["run_id"], b["stream"])
            stored = self.chunks.setdefault(key, {})
            if "parts" in b:
                parts = self._parts.setdefault(key + (b["seq"], b["parts"]), {})
                parts[b["part"]] = b
                if len(parts) < b["parts"]:
                    acked.append({"run_id": b["run_id"], "stream": b["stream"], "seq": b["seq"], "duplicate": False})
                    continue
                b = dict(b, lines=[line for i in range(b["parts"]) for line in parts[i]["lines"]])
                del b["part"], b["parts"]
            duplicate = b["seq"] in stored
            if not duplicate:
                stored[b["seq"]] = b
            acked.append({"run_id": b["run_id"], "stream": b["stream"], "seq": b["seq"], "duplicate": duplicate})
        return 200, {"acked": acked}

    def _import(self, project: str, doc: dict[str, Any], **_: Any) -> tuple[int, Any]:
        if project != self.project:
            raise _Reply(403, {"error": "forbidden", "detail": f"token is for project {self.project}"})
        digest = hashlib.sha256(json.dumps(doc["files"], sort_keys=True).encode()).hexdigest()
        for previous in self.imports:
            if previous["digest"] == digest:
                return 200, {"run_id": previous["run_id"], "duplicate": True, "files": previous["files"]}
        files = self.import_files or [{"name": f["name"], "kind": "auto", "ok": True, "warnings": []}
                                      for f in doc["files"]]
        self.imports.append({"digest": digest, "run_id": str(uuid.uuid4()), "doc": doc, "files": files})
        return 201, {"run_id": self.imports[-1]["run_id"], "duplicate": False, "files": files}

    def _compare(self, project: str, query: dict[str, list[str]], **_: Any) -> tuple[int, Any]:
        self.compare_queries.append(query)
        if self.compare_response is None:
            raise _Reply(404, {"error": "not_found", "detail": "no comparison configured"})
        return 200, self.compare_response


def _batch_problem(b: Any) -> str | None:
    """What the real server's schema would refuse (422), in words."""
    if not isinstance(b, dict):
        return "a batch must be an object"
    for name, kind in (("run_id", str), ("stream", str), ("source", str), ("role", str), ("seq", int),
                       ("lines", list), ("dropped", int), ("closed", bool)):
        if not isinstance(b.get(name), kind):
            return f"batch field {name} must be {kind.__name__}"
    if b["seq"] < 1 or b["dropped"] < 0 or not b["role"]:
        return "seq >= 1, dropped >= 0 and a role are required"
    if not re.fullmatch(r"[A-Za-z0-9_.:@/+-]{1,200}", b["stream"]) or not re.fullmatch(r"[a-z0-9-]+", b["source"]):
        return "bad stream or source name"
    for line in b["lines"]:
        if not (isinstance(line, list) and len(line) == 3 and isinstance(line[2], str)
                and all(isinstance(t, (int, float)) for t in line[:2])):
            return "lines are [wall, mono, text]"
    if "parts" in b and not (isinstance(b.get("part"), int) and 0 <= b["part"] < b["parts"]):
        return "part must be in 0..parts-1"
    return None
