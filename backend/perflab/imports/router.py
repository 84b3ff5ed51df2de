from __future__ import annotations

from fastapi import APIRouter, Request, Response

from perflab.artifacts import service as artifacts_service
from perflab.deps import OneHopRoute, SessionDep, WritableProject
from perflab.imports import job
from perflab.imports.schemas import (
    AttachmentRead,
    FilePreview,
    ImportPreview,
    ImportPreviewRequest,
    ImportRequest,
    ImportResult,
)
from perflab.openapi import json_body
from perflab.runs.router import ReadableRun

router = APIRouter(tags=["imports"], route_class=OneHopRoute)


@router.post("/api/projects/{slug}/imports/preview", response_model=ImportPreview,
             openapi_extra=json_body(ImportPreviewRequest))
async def preview_import(request: Request, project: WritableProject) -> ImportPreview:
    """The body is an ImportPreviewRequest: what the import would read from each file, nothing stored."""
    return ImportPreview(files=[FilePreview(**p) for p in await job.preview(request)])


@router.post("/api/projects/{slug}/imports", response_model=ImportResult, status_code=201,
             openapi_extra=json_body(ImportRequest))
async def create_import(request: Request, project: WritableProject, response: Response) -> ImportResult:
    """The body is an ImportRequest. 201 with the new run; 200 with the run already imported from the
    same files and experiment."""
    result = await job.create(request, project_id=project.id)
    if result["duplicate"]:
        response.status_code = 200
    return ImportResult(run_id=result["run_id"], duplicate=result["duplicate"],
                        experiment_id=result["experiment_id"], files=[FilePreview(**f) for f in result["files"]])


@router.get("/api/runs/{run_id}/attachments", response_model=list[AttachmentRead])
def run_attachments(run: ReadableRun, db: SessionDep) -> list[AttachmentRead]:
    """What an import kept without reading (files or parts of a paste no parser knows), with why."""
    return [AttachmentRead(id=a.id, name=a.name, role=a.role, size_bytes=a.size_bytes, content_type=a.content_type,
                           note=a.note, download_url=f"/api/artifacts/{a.id}/download")
            for a in artifacts_service.list_for_run(db, run_id=run.id, kind="attachment")]
