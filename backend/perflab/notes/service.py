"""Notes: Markdown on a project, an experiment, a run, or a time range of a run. Stored raw."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from perflab import versioning
from perflab.auth.models import User
from perflab.errors import BadInput, Forbidden, NotFound
from perflab.experiments.models import Experiment
from perflab.notes.models import Note
from perflab.projects.models import Project
from perflab.runs.models import Run


def _check_range(run_id: uuid.UUID | None, t_start_s: float | None, t_end_s: float | None) -> None:
    if (t_start_s is not None or t_end_s is not None) and run_id is None:
        raise BadInput("a time range needs a run: set run_id")
    if t_end_s is not None and t_start_s is None:
        raise BadInput("t_end_s needs t_start_s")
    if t_start_s is not None and t_end_s is not None and t_end_s < t_start_s:
        raise BadInput("t_end_s must not be before t_start_s")


def create_note(
    session: Session, *, project: Project, author: User, body_md: str, experiment_id: int | None = None,
    run_id: uuid.UUID | None = None, t_start_s: float | None = None, t_end_s: float | None = None,
) -> Note:
    _check_range(run_id, t_start_s, t_end_s)
    if run_id is not None:
        run = session.get(Run, run_id)
        if run is None or run.project_id != project.id:
            raise NotFound(f"no run {run_id} in project {project.slug!r}")
        if experiment_id is not None and experiment_id != run.experiment_id:
            raise BadInput("run_id belongs to another experiment than experiment_id")
        # A run note is also a note of its experiment, so experiment pages and comparisons find it.
        experiment_id = run.experiment_id
    elif experiment_id is not None:
        exp = session.get(Experiment, experiment_id)
        if exp is None or exp.project_id != project.id:
            raise NotFound(f"no experiment {experiment_id} in project {project.slug!r}")
    note = Note(project_id=project.id, experiment_id=experiment_id, run_id=run_id, t_start_s=t_start_s,
                t_end_s=t_end_s, body_md=body_md, author_id=author.id)
    session.add(note)
    session.flush()
    return note


def list_notes(
    session: Session, *, project: Project, experiment_id: int | None = None, run_id: uuid.UUID | None = None,
    scope: str | None = None,
) -> list[Note]:
    stmt = select(Note).where(Note.project_id == project.id)
    if experiment_id is not None:
        stmt = stmt.where(Note.experiment_id == experiment_id)
    if run_id is not None:
        stmt = stmt.where(Note.run_id == run_id)
    if scope == "project":
        stmt = stmt.where(Note.experiment_id.is_(None), Note.run_id.is_(None))
    elif scope == "experiment":
        stmt = stmt.where(Note.experiment_id.is_not(None), Note.run_id.is_(None))
    elif scope == "run":
        stmt = stmt.where(Note.run_id.is_not(None))
    elif scope is not None:
        raise BadInput("scope must be project, experiment or run")
    return list(session.scalars(stmt.order_by(Note.created_at, Note.id)))


def get_note(session: Session, *, note_id: int) -> Note:
    note = session.get(Note, note_id)
    if note is None:
        raise NotFound(f"no note {note_id}")
    return note


def _check_author(note: Note, user: User) -> None:
    if note.author_id != user.id and user.role != "admin":
        raise Forbidden("only the author of a note (or an admin) may change it")


def update_note(session: Session, *, note: Note, user: User, changes: dict[str, Any]) -> Note:
    _check_author(note, user)
    start = changes.get("t_start_s", note.t_start_s)
    end = changes.get("t_end_s", note.t_end_s)
    _check_range(note.run_id, start, end)
    versioning.bump(session, note, sent=changes.get("version"), what="this note")
    if changes.get("body_md") is not None:
        note.body_md = changes["body_md"]
    if "t_start_s" in changes:
        note.t_start_s = changes["t_start_s"]
    if "t_end_s" in changes:
        note.t_end_s = changes["t_end_s"]
    session.flush()
    return note


def delete_note(session: Session, *, note: Note, user: User) -> None:
    _check_author(note, user)
    session.delete(note)
    session.flush()


def author_emails(session: Session, *, notes: list[Note]) -> dict[int, str]:
    ids = {n.author_id for n in notes if n.author_id is not None}
    if not ids:
        return {}
    return dict(session.execute(select(User.id, User.email).where(User.id.in_(ids))).all())
