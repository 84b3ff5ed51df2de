"""The HTTP layer in-process: body caps per caller, gzip bombs, headers, Host, login limits, docs.

RELIABILITY 4 and 5 are also checked against a real server in tests/system/test_http_hardening.py.
"""

from __future__ import annotations

import functools
import gzip
import struct
import time
import zlib
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.conftest import ADMIN_EMAIL, ADMIN_PASSWORD, make_user


@functools.lru_cache(maxsize=2)
def gzip_bomb(inflated: int) -> bytes:
    """A valid gzip member of `inflated` zero bytes (about 1/1000 of that on the wire).

    One 1 MiB block is deflated once and repeated: a full flush makes each copy byte-aligned and
    independent, so building a 512 MiB bomb takes milliseconds instead of deflating 512 MiB.
    """
    block = bytes(1024 * 1024)
    c = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    deflated = c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)
    n = inflated // len(block)
    crc = 0
    for _ in range(n):
        crc = zlib.crc32(block, crc)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
    end = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS).flush()
    return header + deflated * n + end + struct.pack("<II", crc, (n * len(block)) & 0xFFFFFFFF)


def _login_body(email: str = ADMIN_EMAIL, password: str = ADMIN_PASSWORD) -> dict[str, str]:
    return {"email": email, "password": password}


def test_gzip_bomb_at_login_gets_413_fast(anon: TestClient) -> None:
    bomb = gzip_bomb(512 * 1024 * 1024)
    started = time.monotonic()
    r = anon.post("/api/auth/login", content=bomb,
                  headers={"Content-Encoding": "gzip", "Content-Type": "application/json"})
    elapsed = time.monotonic() - started
    assert r.status_code == 413, r.text
    assert r.json()["error"] == "payload_too_large"
    assert elapsed < 1.0, f"413 took {elapsed:.2f} s"


def test_the_bomb_is_a_real_gzip_stream() -> None:
    assert gzip.decompress(gzip_bomb(4 * 1024 * 1024)) == bytes(4 * 1024 * 1024)


def test_multi_member_gzip_bodies_inflate_whole(client: TestClient) -> None:
    body = b'{"name": "two members", "descr' + b'iption": "' + b"y" * 9000 + b'"}'
    wire = gzip.compress(body[:25]) + gzip.compress(body[25:])
    r = client.post("/api/projects", content=wire,
                    headers={"Content-Encoding": "gzip", "Content-Type": "application/json"})
    assert r.status_code == 201, r.text
    assert len(r.json()["description"]) == 9000


def test_small_gzip_login_still_works(anon: TestClient) -> None:
    make_user()
    body = gzip.compress(b'{"email": "%s", "password": "%s"}' % (ADMIN_EMAIL.encode(), ADMIN_PASSWORD.encode()))
    r = anon.post("/api/auth/login", content=body,
                  headers={"Content-Encoding": "gzip", "Content-Type": "application/json"})
    assert r.status_code == 200, r.text


def test_corrupt_gzip_is_400_naming_the_encoding(anon: TestClient) -> None:
    r = anon.post("/api/auth/login", content=b"\x1f\x8b\x08\x00garbage",
                  headers={"Content-Encoding": "gzip", "Content-Type": "application/json"})
    assert r.status_code == 400
    assert "gzip" in r.json()["detail"]


def test_unknown_content_encoding_is_415(anon: TestClient) -> None:
    r = anon.post("/api/auth/login", content=b"{}", headers={"Content-Encoding": "br"})
    assert r.status_code == 415


def test_chunked_body_without_content_length_is_capped(anon: TestClient) -> None:
    def chunks() -> Iterator[bytes]:
        for _ in range(64):
            yield b"x" * 16384

    r = anon.post("/api/auth/login", content=chunks(), headers={"Content-Type": "application/json"})
    assert r.status_code == 413
    assert "16384" in r.json()["detail"]


def test_declared_oversize_is_refused_before_reading(anon: TestClient) -> None:
    r = anon.post("/api/auth/login", content=b"{}", headers={"Content-Length": "999999999"})
    assert r.status_code == 413


def test_large_bodies_need_credentials_and_then_get_the_upload_cap(
    client: TestClient, project: dict[str, Any], agent_token: str, app: Any
) -> None:
    from tests.conftest import FIXTURES

    # A real vmstat capture, repeated past the anonymous cap (uploads are pastes of this size).
    text = (FIXTURES / "vmstat").glob("*.txt").__next__().read_text()
    while len(text) < 64 * 1024:
        text += text
    files = {"files": [{"name": "vmstat.txt", "content": text}]}
    url = f"/api/projects/{project['slug']}/imports/preview"
    with TestClient(app, base_url="http://testserver") as anon:
        r = anon.post(url, json=files)
        assert r.status_code == 413, r.text
        assert "unauthenticated" in r.json()["detail"]
        r = anon.post(url, json=files, headers={"Authorization": "Bearer plb_not-a-real-token"})
        assert r.status_code == 413
        r = anon.post(url, json=files, headers={"Authorization": f"Bearer {agent_token}"})
        assert r.status_code == 200, r.text
    # A logged-in user too, gzip-encoded on the wire.
    r = client.post(url, content=gzip.compress(__import__("json").dumps(files).encode()),
                    headers={"Content-Encoding": "gzip", "Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    assert r.json()["files"][0]["kind"] == "vmstat"


def test_authenticated_json_routes_get_the_json_cap_not_the_upload_cap(client: TestClient) -> None:
    r = client.post("/api/projects", json={"name": "p", "description": "x" * 9000})
    assert r.status_code == 201, r.text
    r = client.post("/api/projects", json={"name": "q", "description": "x" * (2 * 1024 * 1024)})
    assert r.status_code == 413


def test_pathological_multipart_is_refused_fast(client: TestClient, project: dict[str, Any]) -> None:
    boundary = "b0undary"
    parts = "".join(f'--{boundary}\r\nContent-Disposition: form-data; name="f{i}"\r\n\r\nx\r\n' for i in range(10000))
    body = (parts + f"--{boundary}--\r\n").encode()
    started = time.monotonic()
    r = client.post(f"/api/projects/{project['slug']}/imports/preview", content=body,
                    headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    assert 400 <= r.status_code < 500, r.text
    huge = (f'--{boundary}\r\nContent-Disposition: form-data; name="a"\r\nX-Junk: {"y" * 900_000}\r\n\r\nx\r\n'
            f"--{boundary}--\r\n").encode()
    r = client.post(f"/api/projects/{project['slug']}/notes", content=huge,
                    headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    assert 400 <= r.status_code < 500, r.text
    assert time.monotonic() - started < 2.0


def test_too_many_headers_get_431(anon: TestClient) -> None:
    # Speed is measured against a real server (tests/system): httpx itself is slow with 5,000 headers.
    r = anon.get("/api/health", headers=[(f"x-h{i}", "1") for i in range(150)])
    assert r.status_code == 431
    assert "request headers; at most 100" in r.json()["detail"]
    r = anon.get("/api/health", headers={"x-big": "y" * 40_000})
    assert r.status_code == 431


def test_foreign_host_is_refused(anon: TestClient) -> None:
    make_user()
    r = anon.post("/api/auth/login", json=_login_body(), headers={"Host": "evil.example", "Origin": "http://evil.example"})
    assert r.status_code == 400
    assert r.json()["error"] == "bad_host"
    assert anon.get("/api/health", headers={"Host": "evil.example:8000"}).status_code == 400
    # Loopback names are ours outside production, with any port.
    assert anon.get("/api/health", headers={"Host": "localhost:5173"}).status_code == 200
    assert anon.get("/api/health", headers={"Host": "127.0.0.1"}).status_code == 200


def test_public_url_host_is_accepted(db_engine: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    from perflab.config import get_settings
    from perflab.main import create_app

    monkeypatch.setenv("PERFLAB_HOME", str(tmp_path))
    monkeypatch.setenv("PERFLAB_PUBLIC_URL", "https://perflab.example.com")
    monkeypatch.setenv("PERFLAB_ENV", "production")
    get_settings.cache_clear()
    try:
        with TestClient(create_app(), base_url="https://perflab.example.com") as c:
            assert c.get("/api/health").status_code == 200
            assert c.get("/api/health", headers={"Host": "localhost"}).status_code == 400
            assert c.head("/").status_code == 200
            js = next(p for p in (get_settings().frontend_dist or _dist()).glob("assets/*.js"))
            assert c.get(f"/assets/{js.name}").status_code == 200
            # Source maps stay home in production.
            assert c.get(f"/assets/{js.name}.map").status_code == 404
    finally:
        get_settings.cache_clear()


def _dist() -> Any:
    from perflab.main import frontend_dist

    dist = frontend_dist()
    assert dist is not None, "run `make install` to build the UI"
    return dist


def test_head_on_pages_answers_like_get(anon: TestClient) -> None:
    get, head = anon.get("/"), anon.head("/")
    assert head.status_code == get.status_code == 200
    assert head.headers["content-type"] == get.headers["content-type"]
    assert head.content == b""


def test_openapi_and_docs_need_a_session(anon: TestClient, client: TestClient) -> None:
    assert anon.get("/api/openapi.json").status_code == 401
    assert anon.get("/api/docs").status_code == 401
    r = client.get("/api/openapi.json")
    assert r.status_code == 200 and "/api/health" in r.json()["paths"]
    assert client.get("/api/docs").status_code == 200


def test_openapi_can_be_opened_by_setting(db_engine: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    from perflab.config import get_settings
    from perflab.main import create_app

    monkeypatch.setenv("PERFLAB_HOME", str(tmp_path))
    monkeypatch.setenv("PERFLAB_PUBLIC_API_DOCS", "true")
    get_settings.cache_clear()
    try:
        with TestClient(create_app(), base_url="http://testserver") as c:
            assert c.get("/api/openapi.json").status_code == 200
    finally:
        get_settings.cache_clear()


def _attempt(app: Any, address: str, password: str, cookies: dict[str, str] | None = None) -> Any:
    with TestClient(app, base_url="http://testserver", client=(address, 40000), cookies=cookies) as c:
        return c.post("/api/auth/login", json=_login_body(password=password))


@pytest.fixture
def small_account_limit(monkeypatch: pytest.MonkeyPatch) -> int:
    """The per-account limit, lowered so a test needs few (slow, argon2-checked) attempts."""
    from perflab.ratelimit import account_limiter

    monkeypatch.setattr(account_limiter, "max_misses", 4)
    return 4


def test_login_is_limited_per_account_across_addresses(app: Any, small_account_limit: int) -> None:
    make_user()
    for i in range(small_account_limit):
        assert _attempt(app, f"10.0.0.{i}", "wrong").status_code == 401
    r = _attempt(app, "10.0.1.1", ADMIN_PASSWORD)
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0
    # Other accounts are not affected.
    make_user("other@example.test", ADMIN_PASSWORD, role="member")
    with TestClient(app, base_url="http://testserver", client=("10.0.1.2", 1)) as c:
        assert c.post("/api/auth/login", json=_login_body("other@example.test")).status_code == 200


def test_an_attacker_cannot_lock_the_user_out_of_a_known_browser(app: Any, small_account_limit: int) -> None:
    make_user()
    first = _attempt(app, "192.168.1.5", ADMIN_PASSWORD)
    assert first.status_code == 200
    device = first.cookies.get("perflab_device")
    assert device
    for i in range(small_account_limit):
        _attempt(app, f"10.9.0.{i}", "guess")
    assert _attempt(app, "10.9.1.1", ADMIN_PASSWORD).status_code == 429
    # The user's own browser, from a new network even, still gets in.
    assert _attempt(app, "172.16.0.9", ADMIN_PASSWORD, cookies={"perflab_device": device}).status_code == 200
    # A cookie for another account does not help.
    assert _attempt(app, "172.16.0.9", ADMIN_PASSWORD, cookies={"perflab_device": "0" * 64}).status_code == 429


def test_values_postgresql_refuses_are_422_not_500(client: TestClient) -> None:
    # The backstop for routes that do not validate such values themselves (found by tests/fuzz).
    r = client.post("/api/projects", json={"name": "nul", "description": "a\u0000b"})
    assert r.status_code == 422, r.text
    assert "NUL" in r.text or "description" in r.text


def test_blank_experiment_names_are_400_not_500(client: TestClient, project: dict[str, Any]) -> None:
    # Found by tests/fuzz: `?experiments=` selected nothing and the comparison indexed an empty list.
    for suffix in ("", "/export.csv", "/export.json", "/markdown"):
        r = client.get(f"/api/projects/{project['slug']}/compare{suffix}?experiments=&experiments=%20&baseline=")
        assert r.status_code == 400, (suffix, r.text)
        assert "at least one experiment" in r.json()["detail"]


def _pieces(wire: bytes, *, chunk: int) -> tuple[list[tuple[int, bool]], bytes]:
    """(size, more_body) of each body message an upload route receives for a gzip body sent in `chunk`-byte
    wire messages, through BodyLimitMiddleware alone, and the body it received."""
    import asyncio

    from perflab.middleware import BodyLimitMiddleware

    seen: list[tuple[int, bool]] = []
    whole = bytearray()

    async def route(scope: Any, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            seen.append((len(message["body"]), message["more_body"]))
            whole.extend(message["body"])
            if not message["more_body"]:
                break
        await send({"type": "http.response.start", "status": 201, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    app = BodyLimitMiddleware(route, small_cap=16 * 1024, json_cap=1 << 20, credentials_valid=lambda _h: True,
                              upload_routes=((r"/upload", 1 << 30, 1 << 30),))
    parts = [wire[i:i + chunk] for i in range(0, len(wire), chunk)]

    async def receive() -> dict[str, Any]:
        body = parts.pop(0)
        return {"type": "http.request", "body": body, "more_body": bool(parts)}

    async def send(_message: Any) -> None:
        pass

    scope = {"type": "http", "path": "/upload", "headers": [(b"content-encoding", b"gzip")]}
    asyncio.run(app(scope, receive, send))
    return seen, bytes(whole)


def test_a_gzip_body_reaches_the_route_a_mebibyte_at_most_at_a_time() -> None:
    """A 64 KiB wire chunk of a repetitive body inflates to tens of MiB, which the route held whole until it
    had spooled it (a 64 MB import raised the serving process by 74-121 MiB). Pieces of at most 1 MiB,
    exactly the body, across gzip members, whatever the wire chunks."""
    from perflab.middleware import INFLATED_PIECE

    text = b"".join(b" 1  0      0 23%06d   8532 589072    0    0  %5d\n" % (i % 997, i % 4099) for i in range(200_000))
    for wire, chunk in ((gzip_bomb(48 * 1024 * 1024), 64 * 1024), (gzip.compress(text) + gzip.compress(b"tail"), 4096),
                        (gzip.compress(text[:70_000]), 1)):
        messages, body = _pieces(wire, chunk=chunk)
        assert body == gzip.decompress(wire)
        assert max(n for n, _ in messages) <= INFLATED_PIECE
        assert [more for _, more in messages] == [True] * (len(messages) - 1) + [False]
