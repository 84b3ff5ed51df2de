"""ASGI middleware: body-size caps that hold without Content-Length, gzip request bodies, headers.

Pure ASGI (not BaseHTTPMiddleware) so that an oversized body is refused while it streams in.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class TooLarge(Exception):
    pass


def gunzip_capped(data: bytes, cap: int) -> bytes:
    """Decompress gzip, stopping as soon as the output would pass `cap` bytes."""
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out = bytearray()
    chunk = data
    while chunk:
        out += d.decompress(chunk, cap + 1 - len(out))
        if len(out) > cap:
            raise TooLarge(f"decompressed body exceeds {cap} bytes")
        chunk = d.unconsumed_tail
    if not d.eof:
        raise ValueError("truncated gzip body")
    return bytes(out)


async def _send_error(send: Send, status: int, error: str, detail: str) -> None:
    body = json.dumps({"error": error, "detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


class BodyLimitMiddleware:
    """Buffers request bodies up to a per-path cap (413 beyond) and inflates gzip-encoded ones."""

    def __init__(
        self, app: ASGIApp, *, default_cap: int, large_cap: int, large_prefixes: tuple[str, ...], inflated_cap: int
    ) -> None:
        self.app = app
        self.default_cap = default_cap
        self.large_cap = large_cap
        self.large_prefixes = large_prefixes
        self.inflated_cap = inflated_cap

    def _cap(self, path: str) -> int:
        if any(path.startswith(p) for p in self.large_prefixes) or path.endswith("/profiles"):
            return self.large_cap
        return self.default_cap

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        cap = self._cap(scope["path"])
        headers = {k.lower(): v for k, v in scope.get("headers", [])}
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > cap:
            await _send_error(send, 413, "payload_too_large", f"request body is larger than {cap} bytes")
            return
        body = bytearray()
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > cap:
                await _send_error(send, 413, "payload_too_large", f"request body is larger than {cap} bytes")
                return
        encoding = headers.get(b"content-encoding", b"").strip().lower()
        if encoding == b"gzip":
            try:
                body = bytearray(gunzip_capped(bytes(body), self.inflated_cap))
            except TooLarge as exc:
                await _send_error(send, 413, "payload_too_large", str(exc))
                return
            except (zlib.error, ValueError) as exc:
                await _send_error(send, 400, "bad_input", f"the gzip-encoded body is corrupt: {exc}")
                return
            scope = dict(scope)
            scope["headers"] = [
                (k, v) for k, v in scope["headers"] if k.lower() not in (b"content-encoding", b"content-length")
            ] + [(b"content-length", str(len(body)).encode())]
        elif encoding not in (b"", b"identity"):
            await _send_error(send, 415, "unsupported_encoding", f"Content-Encoding {encoding.decode()!r} is not supported")
            return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


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
