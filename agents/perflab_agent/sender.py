"""The sender thread: posts what the spool holds and does what docs/protocol.md's status table says.

It is the only place that talks to /api/ingest/batches and the upload endpoints, and it never blocks
sampling: readers and the batcher only touch memory and the spool.
"""

import threading
import time

from perflab_agent.transport import AUTH_RETRY_S, NetworkError, backoff_delay
from perflab_agent.util import log

INGEST_PATH = "/api/ingest/batches"
REQUEST_MAX_BYTES = 1024 * 1024
MIN_REQUEST_BYTES = 1024
REQUEST_MAX_BATCHES = 200
EXPIRE_EVERY_S = 30.0
UPLOAD_TIMEOUT_S = 300.0


class _Outcome:
    def __init__(self, kind, retry_after=None, reason=""):
        self.kind = kind
        self.retry_after = retry_after
        self.reason = reason


OK = _Outcome("ok")
IDLE = _Outcome("idle")


def _retry(reason, retry_after=None):
    return _Outcome("retry", retry_after, reason)


def _auth(reason):
    return _Outcome("auth", None, reason)


class Sender(threading.Thread):
    def __init__(self, client, spool, agent_id, limits):
        super().__init__(name="perflab-sender", daemon=True)
        self.client = client
        self.spool = spool
        self.agent_id = agent_id
        self.limits = limits
        self.request_max_bytes = REQUEST_MAX_BYTES
        self.failures = 0
        # Uploads back off on their own: an endpoint refusing a profile must neither stall the
        # batches nor be retried every time a batch goes through.
        self.upload_failures = 0
        self.upload_retry_at = 0.0
        self.sent_batches = 0
        self._stopping = threading.Event()
        self._deadline = None
        # Set when any other request (poll, heartbeat) got an answer: cut the jitter part of a backoff
        # short, so delivery resumes promptly once the server is back.
        self._server_answered = threading.Event()
        client.on_success(self._server_answered.set)

    def stop(self, drain_timeout=0.0):
        """Finish: keep sending for up to `drain_timeout` seconds while there is work, then return."""
        self._deadline = time.monotonic() + drain_timeout
        self._stopping.set()
        self._server_answered.set()
        self.spool.wake()
        if self.is_alive():
            self.join(drain_timeout + self.client.timeout + 5)

    def run(self):
        last_expire = 0.0
        while True:
            if time.monotonic() - last_expire > EXPIRE_EVERY_S:
                last_expire = time.monotonic()
                try:
                    self.spool.expire()
                except OSError as e:
                    log.error("spool maintenance failed: %s", e)
            generation = self.spool.generation
            try:
                outcome = self._send_once()
            except Exception:  # noqa: BLE001 - the sender thread must outlive any bug in one send
                log.exception("sender: unexpected error")
                outcome = _retry("internal error")
            if outcome is OK:
                if self.failures:
                    log.info("sender: server reachable again after %d failed attempts", self.failures)
                self.failures = 0
                continue
            if self._past_deadline():
                return
            if outcome is IDLE:
                if self._stopping.is_set():
                    return
                self.spool.wait_for_change(generation, 1.0)
                continue
            self._pause(outcome)

    def _past_deadline(self):
        return self._stopping.is_set() and time.monotonic() >= self._deadline

    def _pause(self, outcome):
        if outcome.kind == "auth":
            log.error("sender: the server refused the token (%s); still spooling to %s; retrying every %ds",
                      outcome.reason, self.spool.path, AUTH_RETRY_S)
            self._sleep(AUTH_RETRY_S, wakeable=False)
            return
        self.failures += 1
        delay = backoff_delay(self.failures, outcome.retry_after)
        if self.failures == 1 or self.failures % 10 == 0:
            log.warning("sender: %s; %d batches spooled; retry %d in %.1fs",
                        outcome.reason, self.spool.pending(), self.failures, delay)
        else:
            log.debug("sender: %s; retry %d in %.1fs", outcome.reason, self.failures, delay)
        mandatory = min(delay, outcome.retry_after or 0.0)
        self._sleep(mandatory, wakeable=False)
        self._sleep(delay - mandatory, wakeable=True)

    def _sleep(self, seconds, wakeable):
        if wakeable:
            self._server_answered.clear()
        end = time.monotonic() + seconds
        while True:
            now = time.monotonic()
            remaining = end - now
            if self._stopping.is_set():
                remaining = min(remaining, self._deadline - now)
            if remaining <= 0 or (wakeable and self._server_answered.is_set()):
                return
            # Short naps: a stop request or a recovered server is noticed within a fraction of a second.
            (self._server_answered if wakeable else self._stopping).wait(min(remaining, 0.25))
            if not wakeable and self._stopping.is_set() and time.monotonic() >= self._deadline:
                return

    def _send_once(self):
        items = self.spool.checkout(self.request_max_bytes, REQUEST_MAX_BATCHES)
        if items:
            try:
                return self._deliver(items)
            finally:
                self.spool.release(items)
        if time.monotonic() < self.upload_retry_at:
            return IDLE
        upload = self.spool.checkout_upload()
        if upload is None:
            return IDLE
        try:
            outcome = self._deliver_upload(upload)
        finally:
            self.spool.release_upload(upload)
        if outcome.kind != "retry":
            self.upload_failures = 0
            return outcome
        self.upload_failures += 1
        delay = backoff_delay(self.upload_failures, outcome.retry_after)
        self.upload_retry_at = time.monotonic() + delay
        level = log.warning if self.upload_failures == 1 or self.upload_failures % 10 == 0 else log.debug
        level("sender: %s; retry %d in %.1fs", outcome.reason, self.upload_failures, delay)
        return IDLE

    # ---------------------------------------------------------------- batches

    def _post(self, batches):
        return self.client.request("POST", INGEST_PATH, json_body={"agent_id": self.agent_id, "batches": batches})

    def _deliver(self, items):
        try:
            resp = self._post([item.batch for item in items])
        except NetworkError as e:
            return _retry(str(e))
        if resp.ok:
            # 2xx means committed (docs/protocol.md): every batch of the request is the server's now.
            for item in items:
                self.spool.ack(item)
            self.sent_batches += len(items)
            return OK
        if resp.status == 413:
            if len(items) > 1:
                self.request_max_bytes = max(MIN_REQUEST_BYTES, sum(item.size for item in items) // 2)
                return self._deliver_halves(items)
            return self._deliver_parts(items[0])
        if len(items) > 1 and (resp.status in (400, 422)
                               or (resp.status in (404, 410) and len({i.key[0] for i in items}) > 1)):
            # The answer is about one batch (or one run) but does not say which: halve until it is
            # alone, so the others still go through.
            return self._deliver_halves(items)
        return self._refused(resp, items)

    def _deliver_halves(self, items):
        middle = len(items) // 2
        for half in (items[:middle], items[middle:]):
            outcome = self._deliver(half)
            if outcome is not OK:
                return outcome
        return OK

    def _deliver_parts(self, item):
        """A sealed batch the server finds too large: send it as parts of the same seq."""
        lines = item.batch.get("lines") or []
        parts = 2
        while True:
            if parts > len(lines):
                self.spool.reject(item, "HTTP 413 even when split into single lines")
                return OK
            failed = None
            for index in range(parts):
                chunk = lines[index * len(lines) // parts:(index + 1) * len(lines) // parts]
                batch = dict(item.batch, lines=chunk, part=index, parts=parts)
                try:
                    resp = self._post([batch])
                except NetworkError as e:
                    return _retry(str(e))
                if not resp.ok:
                    failed = resp
                    break
            if failed is None:
                self.spool.ack(item)
                self.sent_batches += 1
                # Seal smaller batches from now on, so this stays the exception.
                self.limits.lower(item.size // parts)
                return OK
            if failed.status != 413:
                return self._refused(failed, [item])
            # Re-split the whole batch: the server assembles parts that share the same `parts` value.
            parts *= 2

    def _refused(self, resp, items):
        """Every non-2xx answer other than 413, as docs/protocol.md's table says."""
        if resp.status in (400, 422):
            for item in items:
                self.spool.reject(item, resp.detail())
            return OK
        if resp.status in (401, 403):
            return _auth(resp.detail())
        if resp.status in (404, 410) and resp.json() is not None:
            # Only the application's own JSON 404 means "run unknown": a proxy's HTML 404 for a
            # mistyped --server must not make us throw data away.
            for run_id in sorted({item.key[0] for item in items}):
                log.warning("sender: the server does not know run %s (%s); dropping its batches",
                            run_id, resp.detail())
                self.spool.drop_run(run_id)
            return OK
        return _retry(resp.detail(), resp.retry_after)

    # ---------------------------------------------------------------- uploads

    def _deliver_upload(self, upload):
        headers = {"Content-Length": str(upload.size)}
        if upload.content_encoding:
            headers["Content-Encoding"] = upload.content_encoding
        try:
            with open(upload.body_path, "rb") as body:
                resp = self.client.request("POST", upload.path, query=upload.query, data=body,
                                           content_type="application/octet-stream", headers=headers,
                                           timeout=UPLOAD_TIMEOUT_S)
        except NetworkError as e:
            return _retry(f"upload: {e}")
        except OSError as e:
            log.error("sender: upload %s unreadable (%s); setting it aside", upload.id, e)
            self.spool.finish_upload(upload, reject_reason=str(e))
            return OK
        what = "POST {}?{}".format(upload.path, "&".join(f"{k}={v}" for k, v in sorted(upload.query.items())))
        if resp.ok:
            log.info("sender: uploaded %s (%d bytes)", what, upload.size)
            self.spool.finish_upload(upload)
            return OK
        if resp.status in (400, 413, 422):
            log.error("sender: the server refused upload %s (%s); set aside in %s/rejected",
                      what, resp.detail(), self.spool.path)
            self.spool.finish_upload(upload, reject_reason=resp.detail())
            return OK
        if resp.status in (401, 403):
            return _auth(resp.detail())
        if resp.status in (404, 410) and resp.json() is not None:
            log.warning("sender: dropping upload %s: %s", what, resp.detail())
            self.spool.finish_upload(upload)
            return OK
        return _retry(f"upload {what}: {resp.detail()}", resp.retry_after)
