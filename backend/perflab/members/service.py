"""Project membership: who may read, write or manage a project."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from perflab.auth.models import User
from perflab.errors import BadInput, Conflict, NotFound
from perflab.members.models import ROLES, ProjectMember
from perflab.projects.models import Project


def roles_of(session: Session, *, user_id: int) -> dict[int, str]:
    """{project_id: role} of one user: loaded once per request by the access dependencies."""
    rows = session.execute(select(ProjectMember.project_id, ProjectMember.role)
                           .where(ProjectMember.user_id == user_id)).all()
    return {project_id: role for project_id, role in rows}


def list_members(session: Session, *, project: Project) -> list[dict[str, Any]]:
    rows = session.execute(
        select(ProjectMember, User.email).join(User, User.id == ProjectMember.user_id)
        .where(ProjectMember.project_id == project.id).order_by(User.email)
    ).all()
    return [{"user_id": m.user_id, "email": email, "role": m.role, "created_at": m.created_at} for m, email in rows]


def _user_by_email(session: Session, email: str) -> User:
    user = session.scalar(select(User).where(func.lower(User.email) == email.strip().lower()))
    if user is None:
        raise NotFound(f"no user {email.strip()!r}; an admin creates accounts (perflab user create EMAIL)")
    return user


def _check_role(role: str) -> None:
    if role not in ROLES:
        raise BadInput(f"role must be one of {', '.join(ROLES)}, not {role!r}")


def _lock_ownership(session: Session, project: Project) -> None:
    """Serialise changes to who owns a project: two owners leaving at once must not both see the other.

    Under READ COMMITTED the owner count is read in a fresh snapshot after this lock is granted, so the
    second of two concurrent removals counts the first one's commit. FOR NO KEY UPDATE does not block
    the key-share locks that inserts of runs, notes etc. take on the project row.
    """
    session.execute(select(Project.id).where(Project.id == project.id).with_for_update(key_share=True))


def _owners(session: Session, project: Project) -> int:
    return session.scalar(select(func.count()).select_from(ProjectMember).where(
        ProjectMember.project_id == project.id, ProjectMember.role == "owner")) or 0


def add_member(session: Session, *, project: Project, email: str, role: str) -> tuple[dict[str, Any], bool]:
    """Adds the user, or changes the role of one already there. Returns (member, created)."""
    _check_role(role)
    user = _user_by_email(session, email)
    _lock_ownership(session, project)
    row = session.get(ProjectMember, (project.id, user.id), populate_existing=True)
    created = row is None
    if row is None:
        row = ProjectMember(project_id=project.id, user_id=user.id, role=role)
        session.add(row)
    else:
        _keep_an_owner(session, project, row, role)
        row.role = role
    session.flush()
    return {"user_id": user.id, "email": user.email, "role": row.role, "created_at": row.created_at}, created


def _get(session: Session, project: Project, user_id: int) -> ProjectMember:
    _lock_ownership(session, project)
    # Read again after the lock: another request may have changed this row while we waited.
    row = session.get(ProjectMember, (project.id, user_id), populate_existing=True)
    if row is None:
        raise NotFound(f"user {user_id} is not a member of {project.slug!r}")
    return row


def _keep_an_owner(session: Session, project: Project, row: ProjectMember, new_role: str | None) -> None:
    # A project left without an owner could only be managed by an admin again.
    if row.role == "owner" and new_role != "owner" and _owners(session, project) <= 1:
        raise Conflict(f"{project.slug!r} needs at least one owner; make someone else owner first")


def update_member(session: Session, *, project: Project, user_id: int, role: str) -> dict[str, Any]:
    _check_role(role)
    row = _get(session, project, user_id)
    _keep_an_owner(session, project, row, role)
    row.role = role
    session.flush()
    user = session.get(User, user_id)
    assert user is not None
    return {"user_id": user.id, "email": user.email, "role": row.role, "created_at": row.created_at}


def remove_member(session: Session, *, project: Project, user_id: int) -> None:
    row = _get(session, project, user_id)
    _keep_an_owner(session, project, row, None)
    session.delete(row)
    session.flush()


def remove_member_by_email(session: Session, *, project: Project, email: str) -> None:
    remove_member(session, project=project, user_id=_user_by_email(session, email).id)
