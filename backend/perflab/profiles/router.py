"""Profile routes: upload to a run, metadata, tree, functions, diff, and the original as a download.

Tree and diff bodies are built as plain JSON (tens of thousands of nodes: validating each one
through pydantic would cost more than computing it), from the call tree stored at upload, in a
parser process when the tree is large; the response models document their shape.
"""

from __future__ import annotations

import tempfile
import uuid
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from perflab.artifacts import service as artifacts_service
from perflab.artifacts.download import download_headers
from perflab.deps import (
    OneHopRoute,
    PrincipalDep,
    ReadableProject,
    SessionDep,
    check_project_access,
    releases_connection,
)
from perflab.errors import NotFound
from perflab.profiles import service
from perflab.profiles.models import Profile
from perflab.profiles.schemas import (
    FunctionRow,
    FunctionTable,
    ProfileCreated,
    ProfileDiff,
    ProfileRead,
    ProfileTree,
    ProfileUpdate,
)
from perflab.requestbody import sync_chunks
from perflab.runs.router import ReadableRun, WritableRun

router = APIRouter(tags=["profiles"], route_class=OneHopRoute)

@releases_connection
def readable_profile(profile_id: str, principal: PrincipalDep, db: SessionDep) -> Profile:
    row = service.get_profile(db, profile_id=service.parse_profile_id(profile_id))
    check_project_access(principal, service.project_of(db, profile=row), "read")
    if row.deleted_at is not None:
        raise NotFound(f"profile {row.id} is in the trash; restore it from the project's Trash to see it")
    return row


@releases_connection
def readable_other(
    principal: PrincipalDep, db: SessionDep, other: Annotated[str, Query(description="the profile to compare with")]
) -> Profile:
    return readable_profile(other, principal, db)


@releases_connection
def writable_profile(profile_id: str, principal: PrincipalDep, db: SessionDep) -> Profile:
    row = readable_profile(profile_id, principal, db)
    check_project_access(principal, service.project_of(db, profile=row), "write")
    return row


ReadableProfile = Annotated[Profile, Depends(readable_profile)]
WritableProfile = Annotated[Profile, Depends(writable_profile)]
OtherProfile = Annotated[Profile, Depends(readable_other)]


def _read(row: Profile, context: dict[str, Any] | None = None) -> ProfileRead:
    """``context``: the run label and experiment (see service.context)."""
    ctx = context or {}
    return ProfileRead(
        profile_id=row.id, run_id=row.run_id, name=row.name, role=row.role, format=row.format,
        unit=row.unit, event=row.event, total=row.total, frames=row.frames, stacks=row.stacks,
        lossy=row.lossy, tolerance=row.tolerance, warnings=list(row.warnings),
        artifact_id=row.artifact_id, created_at=row.created_at,
        run_label=ctx.get("run_label"), experiment_id=ctx.get("experiment_id"),
        experiment_name=ctx.get("experiment_name"),
    )


@router.post("/api/runs/{run_id}/profiles", response_model=ProfileCreated, status_code=201)
async def upload_profile(
    run: WritableRun,
    request: Request,
    db: SessionDep,
    name: Annotated[str, Query(max_length=255)] = "",
    role: Annotated[str, Query(max_length=64)] = "",
    unit: Annotated[str | None, Query(max_length=32, description="what a count is; perf: samples or periods")] = None,
) -> ProfileCreated:
    """The body is the file as it is (folded, perf script, flamegraph.pl SVG, sample-bt), gzip
    or not. 422 names the line that is wrong; 413 when it is too large once decompressed."""
    # The body streams to artifact storage as it arrives (never whole in memory), a parser process
    # reads it from there (profiles/parsing.py: the server's threads and memory are not the parse's),
    # then the profile, its call tree and its functions are stored in one transaction.
    stored = await run_in_threadpool(artifacts_service.put_stream, sync_chunks(request))
    profile_id = uuid.uuid4()
    try:
        with tempfile.TemporaryDirectory(prefix="perflab-profile-") as workdir:
            parsed = await service.parse_stored(stored, run_id=run.id, profile_id=profile_id, name=name, unit=unit,
                                                workdir=workdir)

            def store() -> Profile:
                # One thread hop, committed in it (see deps.releases_connection).
                artifact = artifacts_service.add_stored(db, project_id=run.project_id, run_id=run.id,
                                                        kind="flamegraph", name=name or "profile", stored=stored,
                                                        role=role)
                row = service.add_parsed(db, run=run, profile_id=profile_id, artifact=artifact, parsed=parsed,
                                         name=name, role=role)
                db.commit()
                return row

            row = await run_in_threadpool(store)
    except BaseException:
        artifacts_service.discard(stored)
        raise
    return ProfileCreated(
        profile_id=row.id, format=row.format, unit=row.unit, total=row.total, frames=row.frames,
        lossy=row.lossy, warnings=list(row.warnings),
    )


@router.get("/api/runs/{run_id}/profiles", response_model=list[ProfileRead])
def list_run_profiles(run: ReadableRun, db: SessionDep) -> list[ProfileRead]:
    return [_read(p) for p in service.list_for_run(db, run_id=run.id)]


@router.get("/api/projects/{slug}/profiles", response_model=list[ProfileRead])
def list_project_profiles(project: ReadableProject, db: SessionDep) -> list[ProfileRead]:
    return [
        _read(r["profile"], {k: r[k] for k in ("run_label", "experiment_id", "experiment_name")})
        for r in service.list_for_project(db, project_id=project.id)
    ]


@router.get("/api/profiles/{profile_id}", response_model=ProfileRead)
def get_profile(profile: ReadableProfile, db: SessionDep) -> ProfileRead:
    return _read(profile, service.context(db, profile=profile))


@router.patch("/api/profiles/{profile_id}", response_model=ProfileRead)
def update_profile(body: ProfileUpdate, profile: WritableProfile, db: SessionDep) -> ProfileRead:
    """Correct the unit after upload (members and owners): e.g. `{"unit": "nanoseconds"}` for perf
    periods uploaded as samples, so it diffs with the agent's perf profiles."""
    row = service.set_unit(db, profile=profile, unit=body.unit)
    return _read(row, service.context(db, profile=row))


MaxNodes = Annotated[
    int,
    Query(ge=1, le=service.MAX_VIEW_NODES,
          description="at most this many frames, the largest first; the rest is summed into [pruned] nodes"),
]
MinShare = Annotated[
    float, Query(ge=0.0, le=1.0, description="leave out frames under this share of the total (0.001 = 0.1%)")
]


@router.get("/api/profiles/{profile_id}/tree", response_model=ProfileTree)
def get_tree(
    profile: ReadableProfile, db: SessionDep, max_nodes: MaxNodes = service.DEFAULT_VIEW_NODES,
    min_share: MinShare = 0.0,
) -> Response:
    """The call tree, bounded: ``pruned`` says how many frames were left out and what they held."""
    # Read from the tree stored at upload (no parsing).
    return Response(service.tree(db, profile, max_nodes=max_nodes, min_share=min_share), media_type="application/json")


@router.get("/api/profiles/{profile_id}/functions", response_model=FunctionTable)
def get_functions(
    profile: ReadableProfile,
    db: SessionDep,
    order: Literal["total", "self"] = "total",
    limit: Annotated[int, Query(ge=1, le=service.MAX_STORED_FUNCTIONS)] = service.DEFAULT_FUNCTION_LIMIT,
) -> FunctionTable:
    if order == "self":
        rows = service.top_by_self(db, profile=profile, limit=limit)
    else:
        rows = service.functions(db, profile=profile, limit=limit)
    return FunctionTable(
        profile_id=profile.id, unit=profile.unit, total=profile.total,
        functions=[FunctionRow.model_validate(r) for r in rows],
    )


@router.get("/api/profiles/{profile_id}/diff", response_model=ProfileDiff)
def get_diff(
    profile: ReadableProfile,
    other: OtherProfile,
    db: SessionDep,
    max_nodes: MaxNodes = service.DEFAULT_VIEW_NODES,
    min_share: MinShare = 0.0,
) -> Response:
    """``profile`` is the baseline; ``other`` is scaled to its total (see ``factor``). Bounded
    like the tree (``pruned``), with the largest function changes first (``functions_total``)."""
    return Response(service.diff(db, profile, other, max_nodes=max_nodes, min_share=min_share),
                    media_type="application/json")


@router.get("/api/profiles/{profile_id}/original", response_class=Response)
def download_original(profile: ReadableProfile, db: SessionDep) -> Response:
    data, name = service.original(db, profile=profile)
    return Response(
        data,
        media_type="application/octet-stream",
        headers=download_headers(name, fallback="profile"),
    )


@router.get("/api/profiles/{profile_id}/folded", response_class=Response)
def download_folded(profile: ReadableProfile, db: SessionDep) -> Response:
    """The stacks as folded text (flamegraph.pl's input), a download like the original."""
    return Response(
        service.folded(db, profile),
        media_type="application/octet-stream",
        headers=download_headers(f"{profile.name}.folded", fallback="profile.folded"),
    )

