"""Notes shown with a comparison: on its experiments, and on (time ranges of) its runs."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import and_, or_, select
from sqlalchemy.orm import Session

from perflab.compare.schemas import NoteRef
from perflab.compare.selection import Selection
from perflab.notes.models import Note


def notes_for(session: Session, *, sel: Selection, run_ids: Sequence[uuid.UUID] | None = None) -> list[NoteRef]:
    """Notes on the compared experiments and runs; with run_ids, only the notes of those runs."""
    if run_ids is None:
        conds = [and_(Note.run_id.is_(None), Note.experiment_id.in_([e.id for e in sel.experiments]))]
        if sel.run_ids:
            conds.append(Note.run_id.in_(sel.run_ids))
    elif run_ids:
        conds = [Note.run_id.in_(list(run_ids))]
    else:
        return []
    names = {e.id: e.name for e in sel.experiments}
    rows = session.scalars(
        select(Note).where(Note.project_id == sel.project.id, or_(*conds)).order_by(Note.created_at, Note.id)
    )
    return [NoteRef(id=n.id, experiment=names.get(n.experiment_id) if n.experiment_id else None,
                    run_id=str(n.run_id) if n.run_id else None, t_start_s=n.t_start_s, t_end_s=n.t_end_s,
                    body_md=n.body_md, created_at=n.created_at) for n in rows]
