from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Depends

from perflab.deps import (
    CurrentUser,
    OneHopRoute,
    PrincipalDep,
    ReadableProject,
    SessionDep,
    WritableProject,
    check_project_access,
    project_by_id,
    releases_connection,
)
from perflab.notes import service
from perflab.notes.models import Note
from perflab.notes.schemas import NoteCreate, NoteRead, NoteUpdate
from perflab.projects.models import Project

router = APIRouter(tags=["notes"], route_class=OneHopRoute)


@releases_connection
def readable_note(note_id: int, principal: PrincipalDep, db: SessionDep) -> Note:
    note = service.get_note(db, note_id=note_id)
    project = db.get(Project, note.project_id)
    assert project is not None
    check_project_access(principal, project, "read", missing=f"no note {note_id}")
    return note


@releases_connection
def writable_note(note_id: int, principal: PrincipalDep, db: SessionDep) -> Note:
    note = service.get_note(db, note_id=note_id)
    check_project_access(principal, project_by_id(db, note.project_id), "write", missing=f"no note {note_id}")
    return note


ReadableNote = Annotated[Note, Depends(readable_note)]
WritableNote = Annotated[Note, Depends(writable_note)]


def _read(note: Note, emails: dict[int, str]) -> NoteRead:
    return NoteRead(**NoteRead.model_validate(note).model_dump(exclude={"author_email"}),
                    author_email=emails.get(note.author_id) if note.author_id is not None else None)


@router.get("/api/projects/{slug}/notes", response_model=list[NoteRead])
def list_notes(
    project: ReadableProject, db: SessionDep, experiment_id: int | None = None, run_id: uuid.UUID | None = None,
    scope: str | None = None,
) -> list[NoteRead]:
    notes = service.list_notes(db, project=project, experiment_id=experiment_id, run_id=run_id, scope=scope)
    emails = service.author_emails(db, notes=notes)
    return [_read(n, emails) for n in notes]


@router.post("/api/projects/{slug}/notes", response_model=NoteRead, status_code=201)
def create_note(body: NoteCreate, project: WritableProject, user: CurrentUser, db: SessionDep) -> NoteRead:
    note = service.create_note(db, project=project, author=user, body_md=body.body_md, experiment_id=body.experiment_id,
                               run_id=body.run_id, t_start_s=body.t_start_s, t_end_s=body.t_end_s)
    return _read(note, {user.id: user.email})


@router.get("/api/notes/{note_id}", response_model=NoteRead)
def get_note(note: ReadableNote, db: SessionDep) -> NoteRead:
    return _read(note, service.author_emails(db, notes=[note]))


@router.patch("/api/notes/{note_id}", response_model=NoteRead)
def update_note(body: NoteUpdate, note: WritableNote, user: CurrentUser, db: SessionDep) -> NoteRead:
    note = service.update_note(db, note=note, user=user, changes=body.model_dump(exclude_unset=True))
    return _read(note, service.author_emails(db, notes=[note]))


@router.delete("/api/notes/{note_id}", status_code=204)
def delete_note(note: WritableNote, user: CurrentUser, db: SessionDep) -> None:
    service.delete_note(db, note=note, user=user)
