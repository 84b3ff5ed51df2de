"""HTTP to the perflab server: JSON bodies, gzip, the bearer token, and docs/protocol.md's retry rules."""

import datetime
import email.utils
import gzip
import http.client
import json
import math
import random
import socket
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from perflab_agent import __version__
from perflab_agent.util import log, redactor

BACKOFF_BASE_S = 1.0
BACKOFF_MAX_S = 60.0
# A Retry-After is a floor we obey, but a misconfigured server must not park the agent for hours.
RETRY_AFTER_MAX_S = 600.0
# While the token is refused, knock once a minute: an operator may be rotating it.
AUTH_RETRY_S = 60.0
GZIP_MIN_BYTES = 1024
MAX_RESPONSE_BYTES = 32 * 1024 * 1024


def backoff_delay(failures, retry_after=None, rand=random.random):
    """Seconds to wait after the `failures`-th consecutive failure (failures >= 1).

    Full jitter (uniform in [0, ceiling], the ceiling doubling from 1 s to 60 s) spreads agents that
    failed together, so a recovering server is not hit by all of them at once. Retry-After is a
    floor: the server knows better than our schedule when it can take traffic again.
    """
    ceiling = min(BACKOFF_MAX_S, BACKOFF_BASE_S * (2.0 ** min(max(failures, 1) - 1, 30)))
    delay = rand() * ceiling
    if retry_after is not None:
        delay = max(delay, min(retry_after, RETRY_AFTER_MAX_S))
    return delay


def parse_retry_after(value, now=None):
    """Retry-After as seconds from now: delta-seconds or an HTTP date; None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=datetime.timezone.utc)
        seconds = when.timestamp() - (time.time() if now is None else now)
    if not math.isfinite(seconds):
        return None
    return max(0.0, seconds)


def is_transient(status):
    """Statuses worth the same request again later: backpressure, database down, other 5xx."""
    return status in (408, 429) or status >= 500


class NetworkError(Exception):
    """No HTTP answer at all: refused, reset, timed out, TLS failure."""


class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def ok(self):
        return 200 <= self.status < 300

    @property
    def retry_after(self):
        return parse_retry_after(self.headers.get("Retry-After") if self.headers else None)

    def json(self):
        """The decoded JSON body, or None when the body is not JSON (a proxy's HTML error page)."""
        try:
            return json.loads(self.body.decode("utf-8"))
        except ValueError:
            return None

    def detail(self):
        """A short, redacted description of an error answer, for logs and error messages."""
        doc = self.json()
        if isinstance(doc, dict) and (doc.get("detail") or doc.get("error")):
            text = doc.get("detail") or doc.get("error")
            if not isinstance(text, str):
                text = json.dumps(text)
        else:
            text = self.body[:300].decode("utf-8", "replace").strip()
        suffix = (": " + text[:500]) if text else ""
        return redactor.text(f"HTTP {self.status}{suffix}")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    # A redirect would turn our POSTs into GETs and could carry the token to another host: surface it.
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


class Client:
    """One perflab server. Thread-safe: the sender, poller and heartbeat share it."""

    def __init__(self, server, token, timeout=30.0, ca_file=None):
        parsed = urllib.parse.urlsplit(server or "")
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError(f"--server must be an http:// or https:// URL, got {server!r}")
        self.server = server.rstrip("/")
        self._token = token
        self.timeout = timeout
        handlers = [_NoRedirect()]
        if parsed.scheme == "https":
            context = ssl.create_default_context(cafile=ca_file)
            handlers.append(urllib.request.HTTPSHandler(context=context))
        self._opener = urllib.request.build_opener(*handlers)
        self._listeners = []
        self._lock = threading.Lock()

    def on_success(self, callback):
        """Call `callback()` after any request that got an answer below 500: the server is back."""
        with self._lock:
            self._listeners.append(callback)

    def url(self, path, query=None):
        url = self.server + path
        if query:
            url += "?" + urllib.parse.urlencode(query, doseq=True)
        return url

    def request(self, method, path, query=None, json_body=None, data=None, content_type=None,
                compress=None, timeout=None, headers=None):
        """Send one request and return its Response (any status). Raises NetworkError without one.

        `data` may be bytes or an open binary file (then `headers` must give Content-Length).
        JSON and byte bodies over 1 KiB are gzip-encoded unless `compress` says otherwise.
        """
        all_headers = {"User-Agent": "perflab-agent/" + __version__, "Accept": "application/json"}
        if json_body is not None:
            data = json.dumps(json_body, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "replace")
            content_type = "application/json"
        if isinstance(data, bytes):
            if compress is None:
                compress = len(data) > GZIP_MIN_BYTES
            if compress:
                # Level 1: the agent runs on the machine under test, and its bodies cross a LAN. A 10 MB import
                # compresses 4x faster than at level 6, for a body ~20% larger.
                data = gzip.compress(data, compresslevel=1)
                all_headers["Content-Encoding"] = "gzip"
        if content_type:
            all_headers["Content-Type"] = content_type
        all_headers.update(headers or {})
        req = urllib.request.Request(self.url(path, query), data=data, method=method, headers=all_headers)
        # Unredirected: even if some handler followed a redirect, the token would stay behind.
        req.add_unredirected_header("Authorization", "Bearer " + self._token)
        try:
            try:
                resp = self._opener.open(req, timeout=timeout or self.timeout)
            except urllib.error.HTTPError as e:
                resp = e  # an answer all the same: 4xx/5xx (and 3xx, since we do not follow redirects)
            try:
                answer = Response(resp.getcode(), resp.headers, resp.read(MAX_RESPONSE_BYTES))
            finally:
                resp.close()
        except (urllib.error.URLError, OSError, http.client.HTTPException, socket.timeout) as e:
            reason = getattr(e, "reason", None) or e
            raise NetworkError(redactor.text(f"{method} {path}: {reason}"))
        if answer.status < 500:
            with self._lock:
                listeners = list(self._listeners)
            for callback in listeners:
                callback()
        return answer

    def call(self, method, path, stop=None, deadline=None, retry_auth=False, what=None, **kwargs):
        """A control request that must eventually go through: retry transient failures with backoff.

        Returns the Response for anything that is not transient (2xx, and 4xx for the caller to judge).
        With `retry_auth`, 401/403 are logged loudly and retried every minute (a daemon waits for a
        new token). Raises NetworkError once `deadline` (time.monotonic()) passes, Stopped when `stop`
        (a threading.Event) is set.
        """
        failures = 0
        what = what or f"{method} {path}"
        while True:
            error = None
            try:
                resp = self.request(method, path, **kwargs)
            except NetworkError as e:
                resp, error = None, str(e)
            if resp is not None and resp.status in (401, 403) and retry_auth:
                log.error("%s: the server refused the token (%s); retrying every %ds",
                          what, resp.detail(), AUTH_RETRY_S)
                delay = AUTH_RETRY_S
            elif resp is not None and not is_transient(resp.status):
                if failures:
                    log.info("%s: succeeded after %d failed attempts", what, failures)
                return resp
            else:
                failures += 1
                delay = backoff_delay(failures, resp.retry_after if resp is not None else None)
                level = log.warning if failures == 1 or failures % 10 == 0 else log.debug
                level("%s failed (%s); retry %d in %.1fs", what, error or resp.detail(), failures, delay)
            if deadline is not None and time.monotonic() + delay > deadline:
                raise NetworkError(f"{what}: gave up ({error or resp.detail()})")
            if stop is not None:
                if stop.wait(delay):
                    raise Stopped()
            else:
                time.sleep(delay)


class Stopped(Exception):
    """The agent is shutting down; whatever was being retried is abandoned."""
