from __future__ import annotations

from fastapi import APIRouter

from perflab.deps import AdminUser, CurrentUser, ReadableProject, SessionDep
from perflab.projects import service
from perflab.projects.schemas import (
    ProjectCreate,
    ProjectListItem,
    ProjectRead,
    ProjectUpdate,
)

router = APIRouter(prefix="/api/projects", tags=["projects"])


@router.get("", response_model=list[ProjectListItem])
def list_projects(_: CurrentUser, db: SessionDep) -> list[ProjectListItem]:
    return [
        ProjectListItem(
            **ProjectRead.model_validate(row["project"]).model_dump(),
            experiment_count=row["experiment_count"],
            run_count=row["run_count"],
            last_run_at=row["last_run_at"],
        )
        for row in service.list_projects(db)
    ]


@router.post("", response_model=ProjectRead, status_code=201)
def create_project(body: ProjectCreate, _: CurrentUser, db: SessionDep) -> ProjectRead:
    return ProjectRead.model_validate(
        service.create_project(db, name=body.name, slug=body.slug, description=body.description)
    )


@router.get("/{slug}", response_model=ProjectRead)
def get_project(project: ReadableProject) -> ProjectRead:
    return ProjectRead.model_validate(project)


@router.patch("/{slug}", response_model=ProjectRead)
def update_project(body: ProjectUpdate, project: ReadableProject, _: CurrentUser, db: SessionDep) -> ProjectRead:
    return ProjectRead.model_validate(
        service.update_project(db, project=project, name=body.name, description=body.description,
                               validity=body.validity.model_dump() if body.validity else None)
    )


@router.delete("/{slug}", status_code=204)
def delete_project(project: ReadableProject, _: AdminUser, db: SessionDep) -> None:
    service.delete_project(db, project=project)
