"""An import's work, off the serving process: the request body is spooled to a file as it arrives, and
a parser process (profiles/parsing.py's pool, ``PERFLAB_PROFILE_PARSERS``) reads it, validates it,
analyses every file and stores the run in its own transaction.

In the serving process an import was seconds of CPU holding the interpreter lock (FastAPI's JSON
decoding and validation of the body on the event loop, then the parsers, the column encoding and the
statistics in a request thread) and ~8 copies of its input in memory: /api/health waited up to 3 s
behind a 64 MB paste. Here the serving process only copies bytes to a file; the parse's memory goes
back to the system with its process.

``PERFLAB_PROFILE_PARSERS=0`` runs the same job in a thread of the serving process (tests and tools
that run the app in-process), through the app's own database engine.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, TypeVar

from fastapi import Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError
from sqlalchemy.pool import NullPool

from perflab import config, db
from perflab.alerts import wake
from perflab.errors import NotFound, PayloadTooLarge, Unavailable
from perflab.imports import service
from perflab.imports.schemas import ImportPreviewRequest, ImportRequest
from perflab.openapi import body_errors
from perflab.profiles import parsing
from perflab.projects.models import Project
from perflab.requestbody import sync_chunks

M = TypeVar("M", bound=BaseModel)


class InvalidBody(Exception):
    """The body failed validation: FastAPI's 422 errors (``loc`` from ``body``), plain data so they
    cross the process boundary."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__(errors)
        self.errors = errors


def _validated(model: type[M], path: str) -> M:
    try:
        return model.model_validate_json(Path(path).read_bytes())
    except ValidationError as exc:
        raise InvalidBody(body_errors(exc)) from None


def _enter(env: dict[str, str] | None, database_url: str | None) -> None:
    """In a parser process: the server's settings (its PERFLAB_* environment: storage, limits) and
    database. ``None`` in the server's own thread, which has both."""
    if env is None:
        return
    for key in [k for k in os.environ if k.startswith("PERFLAB_")]:
        del os.environ[key]
    os.environ.update(env)
    config.get_settings.cache_clear()
    if database_url is not None:
        # One connection for one transaction: no pool to keep in a process that ends with the job.
        db.set_engine(db.make_engine(database_url, poolclass=NullPool))


def preview_job(*, path: str, env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    _enter(env, None)
    body = _validated(ImportPreviewRequest, path)
    return service.preview(body.files)


def import_job(*, path: str, project_id: int, env: dict[str, str] | None = None,
               database_url: str | None = None) -> dict[str, Any]:
    _enter(env, database_url)
    body = _validated(ImportRequest, path)
    with db.unit_of_work() as session:
        project = session.get(Project, project_id)
        if project is None:  # deleted while the body arrived
            raise NotFound("the project was deleted")
        result = service.import_run(session, project=project, experiment=body.experiment.strip(), label=body.label,
                                    hypothesis=body.hypothesis, files=body.files)
        run = result["run"]
        out = {"run_id": run.id, "experiment_id": run.experiment_id, "duplicate": result["duplicate"],
               "files": result["files"]}
    return out


async def run(request: Request, job: Any, *, database: bool = False, **kwargs: Any) -> Any:
    """Spool the request body to a file, then ``job(path=..., **kwargs)`` in a parser process (handed
    the server's settings, and its database when ``database``); a body that fails validation raises
    FastAPI's RequestValidationError, as a declared body would."""
    fd, path = tempfile.mkstemp(prefix="perflab-import-", suffix=".json")
    try:
        def spool() -> None:
            with os.fdopen(fd, "wb") as out:
                for chunk in sync_chunks(request):
                    out.write(chunk)

        await run_in_threadpool(spool)
        if parsing.uses_processes():
            kwargs["env"] = {k: v for k, v in os.environ.items() if k.startswith("PERFLAB_")}
            if database:
                kwargs["database_url"] = db.current_url()
        try:
            return await parsing.run(job, path=path, niceness=0, **kwargs)
        except InvalidBody as exc:
            raise RequestValidationError(exc.errors) from None
        except parsing.ParserDied as exc:
            raise Unavailable(f"{exc}; retry later, or import fewer or smaller files") from None
        except MemoryError:
            raise PayloadTooLarge("reading these files needs more memory than the server allows") from None
    finally:
        parsing.remove(path)


async def create(request: Request, *, project_id: int) -> dict[str, Any]:
    result = await run(request, import_job, database=True, project_id=project_id)
    # A run that completed may have queued webhook deliveries in the parser process: deliver them now.
    wake.notify()
    return result  # type: ignore[no-any-return]


async def preview(request: Request) -> list[dict[str, Any]]:
    return await run(request, preview_job)  # type: ignore[no-any-return]
