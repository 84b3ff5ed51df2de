"""The FastAPI application: routers, error rendering, the agent download and the built UI."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import DataError, DBAPIError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException

from perflab import __version__, agent_dist, db, domains
from perflab.alerts import delivery as alerts_delivery
from perflab.cluster import live
from perflab.config import get_settings
from perflab.deps import credentials_valid, get_current_user
from perflab.errors import AppError, DatabaseBusy
from perflab.ingest import sweep
from perflab.ingest import workers as parse_workers
from perflab.ingest.parse_process import ParseProcess
from perflab.middleware import (
    BodyLimitMiddleware,
    HeaderLimitMiddleware,
    HostAllowListMiddleware,
    SecurityHeadersMiddleware,
)
from perflab.openapi import add_bodies
from perflab.profiles import parsing as profile_parsing
from perflab.schemas_base import check_params

log = logging.getLogger(__name__)

# Routes reachable without a session or token. The auth-matrix test fails for any route not listed.
PUBLIC_ROUTES = {
    ("GET", "/api/health"),
    ("POST", "/api/auth/login"),
    ("GET", "/agent/perflab-agent.pyz"),
    # The share view: the token in the path is the credential (sharing/router.py).
    ("GET", "/api/share/{token}"),
    ("GET", "/api/share/{token}/overlay"),
}


# Routes whose body is a file or a paste: an authenticated caller may send up to max_upload_bytes.
UPLOAD_PATHS = (
    r"/api/runs/[^/]+/profiles",
    r"/api/agent/runs/[^/]+/artifacts",
    r"/api/projects/[^/]+/imports(?:/preview)?",
)
# Agent batches: the agent splits a batch and resends it on 413.
BATCH_PATH = r"/api/ingest/batches"

_HEALTH_THREADS = anyio.CapacityLimiter(2)

SHARE_PAGE_HEADERS = {
    "Cache-Control": "private, no-store",
    "Referrer-Policy": "no-referrer",
    "X-Robots-Tag": "noindex",
}


def _operation_id(route: APIRoute) -> str:
    tag = route.tags[0] if route.tags else "default"
    return f"{tag}-{route.name}"


def _error(status: int, error: str, detail: Any, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": error, "detail": detail}, status_code=status, headers=headers)


def frontend_dist() -> Path | None:
    settings = get_settings()
    candidates = [settings.frontend_dist] if settings.frontend_dist else []
    candidates.append(Path(__file__).resolve().parents[2] / "frontend" / "dist")
    for c in candidates:
        if c is not None and (c / "index.html").exists():
            return c
    return None


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    # Periodic upkeep that no request triggers: runs whose agent died end `partial` (ingest/sweep.py),
    # once across the cluster (the server holding the sweep lock runs it).
    task = asyncio.create_task(sweep.sweep_forever(get_settings().run_silence_s))
    # Webhook deliveries queued by requests go out from here, never from the request (alerts/delivery.py).
    deliveries = asyncio.create_task(alerts_delivery.deliver_forever())
    # Parsing off the request path, when configured (ingest/workers.py): a served app's parse worker is a
    # child process (ingest/parse_process.py: parsing in this interpreter held the answers behind the GIL);
    # an in-process app (tests' TestClient) keeps a thread.
    parse_stop = threading.Event()
    parser_thread = parser_process = None
    if get_settings().parse_workers:
        if app.state.parse_process:
            parser_process = ParseProcess(db.current_url())
            parser_process.start()
        else:
            parser_thread = parse_workers.start_thread(parse_stop)
    if get_settings().env != "test":  # test apps start by the hundred; most never parse
        profile_parsing.warm()
    try:
        yield
    finally:
        parse_stop.set()
        if parser_process is not None:
            await parser_process.stop()
        if parser_thread is not None:
            await asyncio.to_thread(parse_workers.wake)
            # It commits or rolls back the stream it holds, then stops (at most one parse plus a poll).
            await asyncio.to_thread(parser_thread.join, 10)
        task.cancel()
        deliveries.cancel()
        # Wait for it: its `finally` hands the sweep lock over and closes that connection now.
        with contextlib.suppress(asyncio.CancelledError):
            await task
        # The live pages' listening thread and feeds (cluster/live.py).
        live.close(app.state)
        # The profile parser processes (profiles/parsing.py).
        profile_parsing.shutdown()


def serve_app() -> FastAPI:
    """The app `perflab serve` runs (each process of `--workers N` too): its parse worker is a child process."""
    return create_app(parse_process=True)


def create_app(*, parse_process: bool = False) -> FastAPI:
    settings = get_settings()
    app = FastAPI(
        lifespan=lifespan,
        dependencies=[Depends(check_params)],
        title="perflab",
        version=__version__,
        generate_unique_id_function=_operation_id,
        # Served below, behind a session: the schema maps every route for whoever asks.
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    app.state.parse_process = parse_process

    @app.exception_handler(AppError)
    async def app_error(_: Request, exc: AppError) -> JSONResponse:
        return _error(exc.status_code, exc.error, exc.detail, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
        detail = [
            {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")} for e in exc.errors()
        ]
        return _error(422, "validation_error", detail)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        # An exception that names its error (the body middleware's CheckUnavailable) keeps it.
        error = getattr(exc, "error", None) or {400: "bad_input", 404: "not_found", 405: "method_not_allowed",
                                                413: "payload_too_large"}.get(exc.status_code, "http_error")
        detail = exc.detail
        if exc.status_code == 404 and detail == "Not Found":
            detail = "no such route"
        return _error(exc.status_code, error, detail, dict(exc.headers or {}))

    @app.exception_handler(PoolTimeout)
    async def pool_exhausted(_: Request, exc: PoolTimeout) -> JSONResponse:
        # Outside a unit of work (which turns it into DatabaseBusy): still a 503 to retry, never a 500.
        busy = DatabaseBusy()
        return _error(busy.status_code, busy.error, busy.detail, busy.headers)

    @app.exception_handler(OperationalError)
    async def db_down(_: Request, exc: OperationalError) -> JSONResponse:
        log.warning("database unavailable: %s", exc.orig)
        return _error(503, "database_unavailable", "the database is unreachable; retry shortly", {"Retry-After": "5"})

    @app.exception_handler(DataError)
    async def unstorable_value(_: Request, exc: DataError) -> JSONResponse:
        # PostgreSQL refused a value the client sent (a NUL byte in text, an integer beyond bigint):
        # the request is at fault, so say which problem it is instead of answering 500. Routes that
        # validate the field first name it; this is the backstop for any that do not.
        problem = str(exc.orig).strip().splitlines()[0] if exc.orig else "invalid value"
        # Shaped like a validation error, which is what the OpenAPI document promises for 422.
        return _error(422, "unstorable_value",
                      [{"loc": ["body"], "msg": f"a value cannot be stored: {problem}", "type": "unstorable_value"}])

    @app.exception_handler(DBAPIError)
    async def db_error(_: Request, exc: DBAPIError) -> JSONResponse:
        if exc.connection_invalidated:
            return _error(503, "database_unavailable", "the database connection was lost; retry shortly",
                          {"Retry-After": "5"})
        log.exception("database error")
        return _error(500, "internal_error", "an unexpected database error occurred")

    @app.get("/api/health", tags=["health"])
    async def health() -> JSONResponse:
        # Its own two threads: a burst of requests filling the shared thread pool must not delay it.
        ok = await anyio.to_thread.run_sync(db.ping, limiter=_HEALTH_THREADS)
        body = {"status": "ok" if ok else "degraded", "database": "ok" if ok else "unreachable", "version": __version__}
        return JSONResponse(body, status_code=200 if ok else 503, headers=None if ok else {"Retry-After": "5"})

    @app.get("/agent/perflab-agent.pyz", tags=["agent"], include_in_schema=False)
    def agent_download() -> Response:
        return Response(
            agent_dist.zipapp_bytes(),
            media_type="application/zip",
            headers={"Content-Disposition": 'attachment; filename="perflab-agent.pyz"'},
        )

    _api_docs(app, public=settings.public_api_docs)

    for module_name in domains.ROUTER_MODULES:
        module = domains.load(module_name)
        for attr in ("router", "users_router", "public_router"):
            if hasattr(module, attr):
                app.include_router(getattr(module, attr))

    dist = frontend_dist()
    if dist is not None:
        if (dist / "assets").exists():
            assets = ProductionAssets if settings.env == "production" else StaticFiles
            app.mount("/assets", assets(directory=dist / "assets"), name="assets")
        index = dist / "index.html"

        @app.api_route("/{path:path}", methods=["GET", "HEAD"], include_in_schema=False)
        def spa(path: str) -> Response:
            # API and agent paths never fall back to the UI: they 404 with the error shape.
            if path.startswith(("api/", "agent/")) or path in ("api", "agent"):
                return _error(404, "not_found", "no such route")
            candidate = (dist / path).resolve()
            if path.endswith(".map") and settings.env == "production":
                return _error(404, "not_found", "no such route")
            if path and candidate.is_file() and candidate.is_relative_to(dist.resolve()):
                return FileResponse(candidate)
            if path.startswith("s/"):
                # The public share page: its URL carries the token, so it must not leak or be kept.
                return FileResponse(index, headers=SHARE_PAGE_HEADERS)
            return FileResponse(index, headers={"Cache-Control": "no-cache"})

    # Added innermost first: headers and Host are checked before any body byte is read.
    app.add_middleware(
        BodyLimitMiddleware,
        small_cap=settings.max_anonymous_body_bytes,
        json_cap=settings.max_json_body_bytes,
        upload_routes=(
            *((p, settings.max_upload_bytes, settings.max_decompressed_bytes) for p in UPLOAD_PATHS),
            (BATCH_PATH, settings.max_batch_bytes, settings.max_batch_bytes),
        ),
        credentials_valid=credentials_valid,
        inflight_budget=settings.max_inflight_body_bytes,
    )
    app.add_middleware(HostAllowListMiddleware, allowed=settings.allowed_host_names())
    app.add_middleware(HeaderLimitMiddleware, max_count=settings.max_request_headers,
                       max_bytes=settings.max_request_header_bytes)
    app.add_middleware(SecurityHeadersMiddleware)
    _document_read_bodies(app)
    return app


def _document_read_bodies(app: FastAPI) -> None:
    """The OpenAPI document with the bodies routes read themselves (perflab.openapi)."""
    build = app.openapi

    def document() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = add_bodies(build())
        return app.openapi_schema

    app.openapi = document  # type: ignore[method-assign]


class ProductionAssets(StaticFiles):
    """Built assets without their source maps: production does not hand out the source."""

    def lookup_path(self, path: str) -> tuple[str, Any]:
        if path.endswith(".map"):
            return "", None
        return super().lookup_path(path)


def _api_docs(app: FastAPI, *, public: bool) -> None:
    """The OpenAPI document and Swagger UI, for logged-in users unless PERFLAB_PUBLIC_API_DOCS."""
    guard = [] if public else [Depends(get_current_user)]

    @app.get("/api/openapi.json", include_in_schema=False, dependencies=guard)
    def openapi_document() -> JSONResponse:
        return JSONResponse(app.openapi())

    @app.get("/api/docs", include_in_schema=False, dependencies=guard)
    def api_docs() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url="/api/openapi.json", title="perflab API")
