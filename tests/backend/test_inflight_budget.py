"""Large request bodies share one process-wide budget (issue 21: four concurrent 1 GiB uploads took
+4 GiB, eight would exhaust the machine): past it a request gets 503 with Retry-After, and the
bytes come back to the budget when a request ends."""

from __future__ import annotations

import asyncio
import gzip
from typing import Any

import httpx
from perflab.middleware import BodyLimitMiddleware

MB = 1 << 20


async def _echo_size(scope: Any, receive: Any, send: Any) -> None:
    """Reads the whole body (as a route does) and answers its size."""
    size = 0
    more = True
    while more:
        message = await receive()
        size += len(message.get("body", b""))
        more = message.get("more_body", False)
    await asyncio.sleep(1.5)  # still holding the body while the other request arrives (inflating may be slow)
    body = str(size).encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def _app(budget: int) -> BodyLimitMiddleware:
    return BodyLimitMiddleware(
        _echo_size, small_cap=16 * 1024, json_cap=MB,
        upload_routes=((r"/upload", 64 * MB, 64 * MB),), credentials_valid=lambda _: True, inflight_budget=budget,
    )


def _chunks(data: bytes, size: int = 256 * 1024) -> Any:
    async def gen() -> Any:
        for i in range(0, len(data), size):
            yield data[i : i + size]
            await asyncio.sleep(0)
    return gen()


async def _post(client: httpx.AsyncClient, data: bytes, gz: bool = False) -> httpx.Response:
    headers = {"Authorization": "Bearer x"}
    if gz:
        headers["Content-Encoding"] = "gzip"
    return await client.post("/upload", content=_chunks(data), headers=headers)


def test_concurrent_large_bodies_past_the_budget_get_503_and_the_budget_comes_back() -> None:
    app = _app(budget=12 * MB)

    async def scenario() -> tuple[list[httpx.Response], httpx.Response]:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            first = await asyncio.gather(
                _post(client, b"x" * (8 * MB)),
                _post(client, gzip.compress(b"y" * (8 * MB)), gz=True),  # counted inflated
            )
            after = await _post(client, b"z" * (8 * MB))
            return list(first), after

    first, after = asyncio.run(scenario())
    statuses = sorted(r.status_code for r in first)
    assert statuses == [200, 503], [r.text for r in first]
    busy = next(r for r in first if r.status_code == 503)
    assert busy.json()["error"] == "server_busy" and int(busy.headers["Retry-After"]) >= 1
    assert "limit is 12582912" in busy.json()["detail"]
    assert after.status_code == 200 and after.text == str(8 * MB)  # the budget was given back
    assert app.inflight == 0


def test_small_bodies_do_not_count() -> None:
    app = _app(budget=MB // 2)

    async def scenario() -> list[httpx.Response]:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            return list(await asyncio.gather(*(_post(client, b"x" * (MB - 1)) for _ in range(4))))

    assert [r.status_code for r in asyncio.run(scenario())] == [200] * 4
