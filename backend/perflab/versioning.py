"""Edits carry the version they were made on: a stale one is refused (409) instead of silently
overwriting what someone else saved in between (two tabs editing one hypothesis)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Integer, update
from sqlalchemy.orm import Mapped, Session, mapped_column

from perflab.errors import Conflict


class Versioned:
    # Bumped by every edit; an edit that names another version is refused.
    version: Mapped[int] = mapped_column(Integer, default=1, server_default="1")


def bump(session: Session, row: Any, *, sent: int | None, what: str) -> None:
    """Takes the next version for `row`, atomically when the client said which one it edited."""
    model = type(row)
    if sent is None:
        row.version = (row.version or 1) + 1
        return
    done = session.execute(
        update(model).where(model.id == row.id, model.version == sent).values(version=sent + 1)
        .execution_options(synchronize_session=False)
    ).rowcount  # type: ignore[attr-defined]
    if not done:
        session.refresh(row)
        raise Conflict(f"{what} was changed by someone else since you opened it (you edited version {sent}, it is "
                       f"now at version {row.version}). Nothing was saved: reload to see their change, your text is "
                       "kept as a draft.")
    row.version = sent + 1
