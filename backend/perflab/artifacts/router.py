from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import StreamingResponse

from perflab.artifacts import service
from perflab.artifacts.download import download_headers
from perflab.deps import OneHopRoute, PrincipalDep, SessionDep, check_project_access
from perflab.projects.models import Project

router = APIRouter(tags=["artifacts"], route_class=OneHopRoute)

@router.get("/api/artifacts/{artifact_id}/download")
def download_artifact(artifact_id: int, principal: PrincipalDep, db: SessionDep) -> StreamingResponse:
    artifact = service.get_artifact(db, artifact_id=artifact_id)
    project = db.get(Project, artifact.project_id)
    assert project is not None
    check_project_access(principal, project, "read")
    # Streamed from the data directory or the bucket a chunk at a time; the length is known.
    return StreamingResponse(
        service.open_stream(artifact),
        media_type="application/octet-stream",
        headers={**download_headers(artifact.name, fallback="artifact"),
                 "Content-Length": str(artifact.size_bytes)},
    )
