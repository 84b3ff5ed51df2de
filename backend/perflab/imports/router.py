from __future__ import annotations

from fastapi import APIRouter, Response

from perflab.artifacts import service as artifacts_service
from perflab.deps import OneHopRoute, SessionDep, WritableProject
from perflab.imports import service
from perflab.imports.schemas import (
    AttachmentRead,
    FilePreview,
    ImportPreview,
    ImportPreviewRequest,
    ImportRequest,
    ImportResult,
)
from perflab.runs.router import ReadableRun

router = APIRouter(tags=["imports"], route_class=OneHopRoute)


@router.post("/api/projects/{slug}/imports/preview", response_model=ImportPreview)
def preview_import(body: ImportPreviewRequest, project: WritableProject) -> ImportPreview:
    return ImportPreview(files=[FilePreview(**p) for p in service.preview(body.files)])


@router.post("/api/projects/{slug}/imports", response_model=ImportResult, status_code=201)
def create_import(body: ImportRequest, project: WritableProject, db: SessionDep, response: Response) -> ImportResult:
    result = service.import_run(db, project=project, experiment=body.experiment.strip(), label=body.label,
                                hypothesis=body.hypothesis, files=body.files)
    if result["duplicate"]:
        response.status_code = 200
    run = result["run"]
    return ImportResult(run_id=run.id, duplicate=result["duplicate"], experiment_id=run.experiment_id,
                        files=[FilePreview(**f) for f in result["files"]])


@router.get("/api/runs/{run_id}/attachments", response_model=list[AttachmentRead])
def run_attachments(run: ReadableRun, db: SessionDep) -> list[AttachmentRead]:
    """What an import kept without reading (files or parts of a paste no parser knows), with why."""
    return [AttachmentRead(id=a.id, name=a.name, role=a.role, size_bytes=a.size_bytes, content_type=a.content_type,
                           note=a.note, download_url=f"/api/artifacts/{a.id}/download")
            for a in artifacts_service.list_for_run(db, run_id=run.id, kind="attachment")]
