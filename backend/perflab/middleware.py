"""ASGI middleware: Host allow-list, header caps, body caps that hold while the body streams in.

Pure ASGI (not BaseHTTPMiddleware) so that an oversized body is refused while it streams in, and so
that nothing here buffers a body the application would buffer again.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from sqlalchemy import exc as sa_exc
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
# Whether the request carries a valid session or agent token (checked only once a body is large).
CredentialCheck = Callable[[list[tuple[bytes, bytes]]], bool]


class TooLarge(Exception):
    pass


class CheckUnavailable(HTTPException):
    """The credentials check could not reach the database (down, or every pooled connection taken):
    the caller should retry, so the answer is a 503 with Retry-After like any route's, never a 500.

    An HTTPException so that, raised while a route reads its body, FastAPI passes it on to the
    application's handler (any other exception there becomes "error parsing the body", a 400);
    ``error`` names the cause for that handler."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(
            503,
            str(getattr(cause, "detail", "") or "the database is unreachable; retry shortly"),
            headers=dict(getattr(cause, "headers", None) or {"Retry-After": "5"}),
        )
        self.error = str(getattr(cause, "error", "") or "database_unavailable")


def _is_unavailable(exc: BaseException) -> bool:
    """A database outage or a full pool, as raised by the unit of work (a 503 AppError) or by
    SQLAlchemy directly."""
    return getattr(exc, "status_code", None) == 503 or isinstance(
        exc, (sa_exc.OperationalError, sa_exc.TimeoutError, sa_exc.InterfaceError)
    )


async def _send_error(send: Send, status: int, error: str, detail: str,
                      headers: dict[str, str] | None = None) -> None:
    body = json.dumps({"error": error, "detail": detail}).encode()
    extra = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in (headers or {}).items()]
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *extra],
        }
    )
    await send({"type": "http.response.body", "body": body})


# A bracketed IPv6 literal or a name/IPv4 address, then an optional decimal port, and nothing else.
_HOST_RE = re.compile(r"(?P<host>\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::[0-9]{1,5})?")


class HostAllowListMiddleware:
    """Answers 400 to a Host that is not ours, so a DNS-rebound name cannot reach the API.

    Only the host name is compared: a rebinding page reaches us on our own port anyway.
    """

    def __init__(self, app: ASGIApp, *, allowed: frozenset[str]) -> None:
        self.app = app
        self.allowed = allowed

    @staticmethod
    def hostname(value: str) -> str:
        """The host of a Host header, or the header as given when it is not exactly `host[:port]`.

        Parsed strictly: `[::1]x` or `127.0.0.1:1@evil.example` are not our host with trailing noise
        but not a host at all, so they never match an allowed name.
        """
        value = value.strip().lower()
        match = _HOST_RE.fullmatch(value)
        return match.group("host") if match else value

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        host = b""
        for k, v in scope.get("headers", []):
            if k == b"host":
                host = v
                break
        name = self.hostname(host.decode("latin-1"))
        if name not in self.allowed:
            await _send_error(
                send, 400, "bad_host",
                f"Host {name!r} is not served here; set PERFLAB_PUBLIC_URL (or PERFLAB_ALLOWED_HOSTS) to accept it",
            )
            return
        await self.app(scope, receive, send)


class HeaderLimitMiddleware:
    """431 for requests with too many or too large headers, before anything walks them."""

    def __init__(self, app: ASGIApp, *, max_count: int, max_bytes: int) -> None:
        self.app = app
        self.max_count = max_count
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = scope.get("headers", [])
            if len(headers) > self.max_count:
                await _send_error(send, 431, "headers_too_large",
                                  f"{len(headers)} request headers; at most {self.max_count} are accepted")
                return
            size = sum(len(k) + len(v) for k, v in headers)
            if size > self.max_bytes:
                await _send_error(send, 431, "headers_too_large",
                                  f"request headers total {size} bytes; at most {self.max_bytes} are accepted")
                return
        await self.app(scope, receive, send)


# The most a gzip body's inflation hands the application at once. A 64 KiB wire chunk of a repetitive
# log inflates to tens of MiB, and the route holds each piece until it has written it out: a 64 MB
# import raised the serving process by 74-121 MiB while its body was spooled.
INFLATED_PIECE = 1 << 20


class _Inflater:
    """Incremental gzip inflation whose output never passes `cap` (a bomb stops at the cap), handed on in
    pieces of at most `piece` bytes when given one.

    Handles bodies of several gzip members (RFC 1952 allows it; `gzip.compress` per part makes them).
    """

    def __init__(self) -> None:
        self._d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self.produced = 0
        # What a feed that hit its cap had inflated and had left to inflate: resume() goes on from there
        # under a higher cap (the caller's credentials checked only once the small cap is passed). Also
        # what a feed that filled its piece had left: the next feed goes on from there.
        self._out = bytearray()
        self._left = b""
        self._full = False  # the last piece was cut at its size: zlib may hold more output

    @property
    def pending(self) -> bool:
        """Whether what was fed holds more output than was handed on (feed b"" for the next piece)."""
        return bool(self._left) or self._full

    def feed(self, chunk: bytes, cap: int, piece: int | None = None) -> bytes:
        out, self._out = self._out, bytearray()
        chunk, self._left = self._left + chunk, b""
        full, self._full = self._full, False
        while chunk or full:
            room = cap + 1 - self.produced - len(out)
            limited = piece is not None and piece - len(out) < room
            if limited:
                room = piece - len(out)  # type: ignore[operator]
            got = self._d.decompress(chunk, room)
            out += got
            full = limited and len(got) == room
            chunk = self._d.unconsumed_tail
            if self._d.eof and self._d.unused_data:
                chunk = self._d.unused_data
                self._d = zlib.decompressobj(16 + zlib.MAX_WBITS)
            if self.produced + len(out) > cap:
                self._out, self._left = out, chunk
                raise TooLarge(f"the decompressed request body is larger than {cap} bytes")
            if piece is not None and len(out) >= piece:
                self._left, self._full = chunk, full
                break
            if not got and not chunk:
                break
        self.produced += len(out)
        return bytes(out)

    def resume(self, cap: int, piece: int | None = None) -> bytes:
        """Go on after a TooLarge, under a higher cap."""
        return self.feed(b"", cap, piece)

    def finish(self) -> None:
        if not self._d.eof:
            raise ValueError("truncated gzip body")


class BodyLimitMiddleware:
    """Caps request bodies while they stream (chunked or not) and inflates gzip-encoded ones.

    Every request may send `small_cap` bytes. Past that, the caller's credentials are checked (once,
    in a worker thread): an authenticated caller may send `json_cap` bytes, or on an upload route
    the caps given for it (on the wire, and once decompressed). So an anonymous gzip bomb gets its
    413 after inflating 16 KB, and nobody can make the server buffer a large body before logging in.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        small_cap: int,
        json_cap: int,
        upload_routes: tuple[tuple[str, int, int], ...],
        credentials_valid: CredentialCheck,
        inflight_budget: int | None = None,
    ) -> None:
        self.app = app
        # Bytes of large bodies (past json_cap) all requests together may hold at once; None: no
        # bound. One process, one event loop: a plain counter needs no lock.
        self.inflight_budget = inflight_budget
        self.inflight = 0
        self.small_cap = small_cap
        self.json_cap = json_cap
        self.upload_routes = [(re.compile(p), raw, inflated) for p, raw, inflated in upload_routes]
        self.credentials_valid = credentials_valid

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers: list[tuple[bytes, bytes]] = scope.get("headers", [])
        encoding = b""
        declared: int | None = None
        for k, v in headers:
            if k == b"content-encoding":
                encoding = v.strip().lower()
            elif k == b"content-length" and v.strip().isdigit():
                declared = int(v)
        if encoding not in (b"", b"identity", b"gzip"):
            await _send_error(send, 415, "unsupported_encoding",
                              f"Content-Encoding {encoding.decode('latin-1')!r} is not supported (use gzip)")
            return
        granted = (self.json_cap, self.json_cap)
        for pattern, raw, inflated in self.upload_routes:
            if pattern.fullmatch(scope["path"]):
                granted = (raw, inflated)
                break
        state = {"raw_cap": self.small_cap, "inflated_cap": self.small_cap, "checked": False}

        async def widen() -> bool:
            """Lift the caps for an authenticated caller; False if the caller is not one.

            A database that cannot answer raises :class:`CheckUnavailable` (a 503)."""
            if not state["checked"]:
                state["checked"] = True
                try:
                    valid = await run_in_threadpool(self.credentials_valid, headers)
                except Exception as exc:
                    if _is_unavailable(exc):
                        raise CheckUnavailable(exc) from exc
                    raise
                if valid:
                    state["raw_cap"], state["inflated_cap"] = granted
            return state["raw_cap"] > self.small_cap

        def too_large(cap: int, what: str = "request body") -> HTTPException:
            hint = "" if state["raw_cap"] > self.small_cap else " (unauthenticated requests are limited to this)"
            return HTTPException(413, f"the {what} is larger than {cap} bytes{hint}")

        inflater = _Inflater() if encoding == b"gzip" else None
        try:
            if declared is not None and declared > self.small_cap:
                await widen()
                if declared > int(state["raw_cap"]):
                    await _send_error(send, 413, "payload_too_large", too_large(int(state["raw_cap"])).detail)
                    return
        except CheckUnavailable as exc:
            await _send_error(send, 503, exc.error, str(exc.detail), dict(exc.headers or {}))
            return
        received = 0
        held = 0  # bytes of this body counted against the in-flight budget

        def hold(size: int) -> None:
            """Count a large body's bytes (inflated) against the process-wide budget: past it,
            503 with Retry-After instead of one more body in memory (issue 21: four concurrent
            1 GiB bombs took +4 GiB)."""
            nonlocal held
            if self.inflight_budget is None or size <= 0:
                return
            if self.inflight + size > self.inflight_budget:
                busy = HTTPException(
                    503,
                    f"the server is holding {self.inflight} bytes of large uploads, its limit is "
                    f"{self.inflight_budget}: retry shortly",
                    headers={"Retry-After": "5"},
                )
                busy.error = "server_busy"  # type: ignore[attr-defined]
                raise busy
            self.inflight += size
            held += size

        ended = False  # the client's last body message is in

        async def limited_receive() -> Message:
            nonlocal received, ended
            message: Message
            if inflater is not None and inflater.pending:
                # What the last message inflates to that was not handed on yet: the next piece of it,
                # before the next read from the client.
                message, chunk = {"type": "http.request", "body": b"", "more_body": True}, b""
            else:
                message = await receive()
                if message["type"] != "http.request":
                    return message
                chunk = message.get("body", b"")
                received += len(chunk)
                ended = not message.get("more_body", False)
                if received > int(state["raw_cap"]):
                    await widen()
                    if received > int(state["raw_cap"]):
                        raise too_large(int(state["raw_cap"]))
            if inflater is not None:
                cap = int(state["inflated_cap"])
                try:
                    if not chunk and not inflater.pending:
                        pass
                    elif cap <= self.small_cap:
                        # At most small_cap bytes out (16 KiB: microseconds), on the loop. An agent's
                        # batch is this small: no thread hop, and no credential check of its own (the
                        # route checks the token anyway), which cost every batch a transaction.
                        try:
                            chunk = inflater.feed(chunk, cap)
                        except TooLarge:
                            await widen()
                            cap = int(state["inflated_cap"])
                            if cap <= self.small_cap:
                                raise
                            chunk = await run_in_threadpool(inflater.resume, cap, INFLATED_PIECE)
                    else:
                        # Inflating is CPU work proportional to its output: keep it off the event loop.
                        chunk = await run_in_threadpool(inflater.feed, chunk, cap, INFLATED_PIECE)
                    if ended and not inflater.pending:
                        inflater.finish()
                except TooLarge:
                    raise too_large(cap, "decompressed request body") from None
                except (zlib.error, ValueError) as exc:
                    raise HTTPException(400, f"the gzip-encoded request body is corrupt: {exc}") from None
                message = dict(message)
                message["body"] = chunk
                message["more_body"] = not ended or inflater.pending
            size = inflater.produced if inflater is not None else received
            if size > self.json_cap:
                hold(size - held)  # all of it once past json_cap, then each new chunk
            return message

        if inflater is not None:
            scope = dict(scope)
            scope["headers"] = [(k, v) for k, v in headers if k not in (b"content-encoding", b"content-length")]

        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except HTTPException as exc:
            # Raised from receive() outside any route (e.g. a middleware reading the body): answer here.
            if started or exc.status_code not in (400, 413, 503):
                raise
            error = {413: "payload_too_large", 503: getattr(exc, "error", "database_unavailable")}
            await _send_error(send, exc.status_code, error.get(exc.status_code, "bad_input"), str(exc.detail),
                              dict(exc.headers or {}))
        finally:
            self.inflight -= held


class SecurityHeadersMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {k.lower() for k, _ in headers}
                defaults = [
                    (b"x-content-type-options", b"nosniff"),
                    (b"x-frame-options", b"DENY"),
                    (b"referrer-policy", b"same-origin"),
                    (
                        b"content-security-policy",
                        (
                            b"default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
                            b"script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
                            b"form-action 'self'"
                        ),
                    ),
                ]
                for k, v in defaults:
                    if k not in present:
                        headers.append((k, v))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_headers)
