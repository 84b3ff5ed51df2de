"""The smallest meaningful change per metric family, as a project's owners set it (defaults: stats.MARGINS)."""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy.orm import Session

from perflab import stats
from perflab.compare.models import VerdictSettings
from perflab.projects.models import Project


def margins(session: Session, project: Project) -> dict[str, float]:
    """Every family's margin (a fraction): the project's own where set, the default elsewhere."""
    row = session.get(VerdictSettings, project.id)
    out = dict(stats.MARGINS)
    if row is not None:
        out.update({k: float(v) for k, v in row.margins.items() if k in out})
    return out


def set_margins(session: Session, project: Project, changes: Mapping[str, float | None]) -> dict[str, float]:
    """Apply {family: fraction, or None for the default} and return every family's margin."""
    row = session.get(VerdictSettings, project.id)
    if row is None:
        row = VerdictSettings(project_id=project.id, margins={})
        session.add(row)
    stored = dict(row.margins)
    for family, value in changes.items():
        if value is None:
            stored.pop(family, None)
        else:
            stored[family] = value
    row.margins = stored
    session.commit()
    return margins(session, project)
