from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from perflab.artifacts import service
from perflab.deps import PrincipalDep, SessionDep, check_project_access
from perflab.projects.models import Project

router = APIRouter(tags=["artifacts"])

# Uploaded bytes are only ever a download that cannot run: no inline rendering on our origin.
DOWNLOAD_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; sandbox",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "private, no-store",
}


@router.get("/api/artifacts/{artifact_id}/download")
def download_artifact(artifact_id: int, principal: PrincipalDep, db: SessionDep) -> Response:
    artifact = service.get_artifact(db, artifact_id=artifact_id)
    project = db.get(Project, artifact.project_id)
    assert project is not None
    check_project_access(principal, project, "read")
    safe = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in artifact.name) or "artifact"
    return Response(
        service.read(artifact),
        media_type="application/octet-stream",
        headers={**DOWNLOAD_HEADERS, "Content-Disposition": f'attachment; filename="{safe}"'},
    )
