"""Projects: create, find, list with counts."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from perflab.errors import BadInput, Conflict, NotFound
from perflab.experiments.models import Experiment
from perflab.members.models import ProjectMember
from perflab.projects.models import Project
from perflab.runs.models import Run


def slugify(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return slug[:100] or "project"


def create_project(
    session: Session, *, name: str, slug: str | None = None, description: str = "", owner_id: int | None = None,
    sees: Callable[[int], bool] | None = None,
) -> Project:
    """sees(project_id): whether the caller may see that project (None: everything, the CLI and admins).

    A slug held by a project the caller cannot see is not refused: the new project gets the slug with a
    random suffix instead. No answer names or refuses on account of an invisible project; the suffix
    still tells its creator the slug was taken (a global namespace cannot hide that), but only by
    creating a real project they own, which every admin sees, instead of by a free, silent 409.
    """
    slug = slug or slugify(name)
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", slug):
        raise BadInput(f"slug {slug!r} may only contain lowercase letters, digits and '-'")
    holder = session.scalar(select(Project.id).where(Project.slug == slug))
    if holder is not None:
        if sees is None or sees(holder):
            raise Conflict(f"a project with slug {slug!r} already exists")
        slug = _free_slug(session, slug)
    project = Project(name=name.strip(), slug=slug, description=description)
    session.add(project)
    session.flush()
    if owner_id is not None:
        session.add(ProjectMember(project_id=project.id, user_id=owner_id, role="owner"))
        session.flush()
    return project


def _free_slug(session: Session, taken: str) -> str:
    while True:
        # 24 random bits: unpredictable, so the new slug says nothing about other projects' slugs either.
        candidate = f"{taken[:93]}-{secrets.token_hex(3)}"
        if session.scalar(select(Project.id).where(Project.slug == candidate)) is None:
            return candidate


def get_by_slug(session: Session, *, slug: str) -> Project:
    project = session.scalar(select(Project).where(Project.slug == slug))
    if project is None:
        raise NotFound(f"no project {slug!r}")
    return project


def list_projects(session: Session, *, member_id: int | None = None) -> list[dict[str, Any]]:
    """Every project, or only those ``member_id`` is a member of."""
    exp_counts = (
        select(Experiment.project_id, func.count().label("n")).group_by(Experiment.project_id).subquery()
    )
    run_counts = (
        select(Run.project_id, func.count().label("n"), func.max(func.coalesce(Run.started_at, Run.created_at)).label("last"))
        .group_by(Run.project_id)
        .subquery()
    )
    query = (
        select(Project, exp_counts.c.n, run_counts.c.n, run_counts.c.last)
        .outerjoin(exp_counts, exp_counts.c.project_id == Project.id)
        .outerjoin(run_counts, run_counts.c.project_id == Project.id)
        .order_by(Project.name)
    )
    if member_id is not None:
        query = query.where(Project.id.in_(select(ProjectMember.project_id).where(ProjectMember.user_id == member_id)))
    rows = session.execute(query).all()
    out = []
    for project, n_exp, n_run, last in rows:
        last_at: datetime | None = last
        out.append(
            {
                "project": project,
                "experiment_count": n_exp or 0,
                "run_count": n_run or 0,
                "last_run_at": last_at,
            }
        )
    return out


def update_project(session: Session, *, project: Project, name: str | None, description: str | None,
                   validity: dict[str, float] | None = None) -> Project:
    if validity is not None:
        project.validity = validity
    if name is not None:
        project.name = name.strip()
    if description is not None:
        project.description = description
    session.flush()
    return project


def delete_project(session: Session, *, project: Project) -> None:
    session.delete(project)
    session.flush()
