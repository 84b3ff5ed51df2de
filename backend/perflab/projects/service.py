"""Projects: create, find, list with counts."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from perflab.errors import BadInput, Conflict, NotFound
from perflab.experiments.models import Experiment
from perflab.projects.models import Project
from perflab.runs.models import Run


def slugify(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return slug[:100] or "project"


def create_project(session: Session, *, name: str, slug: str | None = None, description: str = "") -> Project:
    slug = slug or slugify(name)
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", slug):
        raise BadInput(f"slug {slug!r} may only contain lowercase letters, digits and '-'")
    if session.scalar(select(Project).where(Project.slug == slug)) is not None:
        raise Conflict(f"a project with slug {slug!r} already exists")
    project = Project(name=name.strip(), slug=slug, description=description)
    session.add(project)
    session.flush()
    return project


def get_by_slug(session: Session, *, slug: str) -> Project:
    project = session.scalar(select(Project).where(Project.slug == slug))
    if project is None:
        raise NotFound(f"no project {slug!r}")
    return project


def list_projects(session: Session) -> list[dict[str, Any]]:
    exp_counts = (
        select(Experiment.project_id, func.count().label("n")).group_by(Experiment.project_id).subquery()
    )
    run_counts = (
        select(Run.project_id, func.count().label("n"), func.max(Run.created_at).label("last"))
        .group_by(Run.project_id)
        .subquery()
    )
    rows = session.execute(
        select(Project, exp_counts.c.n, run_counts.c.n, run_counts.c.last)
        .outerjoin(exp_counts, exp_counts.c.project_id == Project.id)
        .outerjoin(run_counts, run_counts.c.project_id == Project.id)
        .order_by(Project.name)
    ).all()
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
