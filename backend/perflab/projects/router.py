from __future__ import annotations

from fastapi import APIRouter

from perflab.deps import CurrentUser, OneHopRoute, OwnedProject, PrincipalDep, ReadableProject, SessionDep
from perflab.projects import service
from perflab.projects.schemas import (
    ProjectCreate,
    ProjectListItem,
    ProjectRead,
    ProjectUpdate,
)

router = APIRouter(prefix="/api/projects", tags=["projects"], route_class=OneHopRoute)


@router.get("", response_model=list[ProjectListItem])
def list_projects(user: CurrentUser, db: SessionDep) -> list[ProjectListItem]:
    """Admins see every project; everyone else the projects they are a member of."""
    return [
        ProjectListItem(
            **ProjectRead.model_validate(row["project"]).model_dump(),
            experiment_count=row["experiment_count"],
            run_count=row["run_count"],
            last_run_at=row["last_run_at"],
        )
        for row in service.list_projects(db, member_id=None if user.role == "admin" else user.id)
    ]


@router.post("", response_model=ProjectRead, status_code=201)
def create_project(body: ProjectCreate, principal: PrincipalDep, user: CurrentUser, db: SessionDep) -> ProjectRead:
    """Whoever creates a project becomes its owner. 409 when the slug is taken by a project the caller can
    see; one they cannot see is never revealed: the project gets the slug plus a random suffix (the
    reply's `slug` is the one used)."""
    return ProjectRead.model_validate(
        service.create_project(db, name=body.name, slug=body.slug, description=body.description, owner_id=user.id,
                               sees=None if principal.is_admin else principal.roles.__contains__)
    )


@router.get("/{slug}", response_model=ProjectRead)
def get_project(project: ReadableProject) -> ProjectRead:
    return ProjectRead.model_validate(project)


@router.patch("/{slug}", response_model=ProjectRead)
def update_project(body: ProjectUpdate, project: OwnedProject, _: CurrentUser, db: SessionDep) -> ProjectRead:
    return ProjectRead.model_validate(
        service.update_project(db, project=project, name=body.name, description=body.description,
                               validity=body.validity.model_dump() if body.validity else None)
    )


@router.delete("/{slug}", status_code=204)
def delete_project(project: OwnedProject, _: CurrentUser, db: SessionDep) -> None:
    service.delete_project(db, project=project)
