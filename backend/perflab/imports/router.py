from __future__ import annotations

from fastapi import APIRouter, Response

from perflab.deps import OneHopRoute, SessionDep, WritableProject
from perflab.imports import service
from perflab.imports.schemas import (
    FilePreview,
    ImportPreview,
    ImportPreviewRequest,
    ImportRequest,
    ImportResult,
)

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
