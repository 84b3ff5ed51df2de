"""Saved comparisons (immutable: the run ids are resolved once, at save time) and share links.

A share link is a bearer secret for exactly one comparison: `pls_` + 256 random bits, stored as a
sha256, expiring (90 days by default), revocable by its creator, an owner of its project or an admin.
"""

from __future__ import annotations

import secrets
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from perflab import security
from perflab.auth.models import User
from perflab.compare import overlay as compare_overlay
from perflab.compare import selection as compare_selection
from perflab.compare import settings as verdict_settings
from perflab.compare.schemas import NoteRef
from perflab.db import touch_row
from perflab.errors import Forbidden, Gone, NotFound, TooManyRequests
from perflab.experiments.models import Experiment
from perflab.notes.models import Note
from perflab.projects.models import Project
from perflab.ratelimit import MissLimiter, share_limiter
from perflab.sharing.models import Comparison, ShareLink

# Public views are anonymous and each one computes a whole comparison: bound them per address and per
# link (a link pasted into a busy channel). A share page asks for the view plus one overlay per chart,
# so an address gets room for a few page loads a minute. Counted through ratelimit's limiter interface
# (every view is a "miss"), so the counters live wherever that module keeps them.
VIEWS_PER_ADDRESS = 120
VIEWS_PER_LINK = 600
address_view_limiter = MissLimiter(max_misses=VIEWS_PER_ADDRESS, window_s=60, what="share views")
link_view_limiter = MissLimiter(max_misses=VIEWS_PER_LINK, window_s=60, what="share views")

DEFAULT_EXPIRY_DAYS = 90
SHORT_ID_CHARS = 10
_LAST_USED_EVERY = timedelta(seconds=60)


def now() -> datetime:
    return datetime.now(UTC)


def _short_id(session: Session) -> str:
    while True:
        # ~60 random bits, URL-safe: unguessable enough for a members-only link, short enough to paste.
        candidate = secrets.token_urlsafe(8)[:SHORT_ID_CHARS]
        if session.scalar(select(Comparison.id).where(Comparison.short_id == candidate)) is None:
            return candidate


def save_comparison(
    session: Session, *, project: Project, user: User, baseline: str, experiments: list[str], title: str = "",
    view_state: dict[str, Any] | None = None,
) -> Comparison:
    sel = compare_selection.select_experiments(session, project=project, baseline=baseline, experiments=experiments)
    row = Comparison(
        short_id=_short_id(session), project_id=project.id, title=title.strip(),
        baseline_experiment_id=sel.baseline.id, experiment_ids=[e.id for e in sel.experiments],
        run_ids=sel.run_ids, view_state=view_state or {}, created_by_id=user.id,
        experiment_names=[e.name for e in sel.experiments],
    )
    session.add(row)
    session.flush()
    return row


def get_comparison(session: Session, *, short_id: str) -> Comparison:
    row = session.scalar(select(Comparison).where(Comparison.short_id == short_id))
    if row is None:
        raise NotFound(f"no saved comparison {short_id!r}")
    return row


def list_comparisons(session: Session, *, project: Project) -> list[Comparison]:
    return list(session.scalars(
        select(Comparison).where(Comparison.project_id == project.id)
        .order_by(Comparison.created_at.desc(), Comparison.id.desc())
    ))


def selection(session: Session, *, comparison: Comparison) -> compare_selection.Selection:
    project = session.get(Project, comparison.project_id)
    assert project is not None
    sel = compare_selection.select_runs(session, project=project, experiment_ids=comparison.experiment_ids,
                                        run_ids=comparison.run_ids)
    sel.include_invalid = bool((comparison.view_state or {}).get("include_invalid"))
    # Frozen when saved: config snapshots and profiles attached later, and later renames, do not show.
    sel.frozen_at = comparison.created_at
    names = dict(zip(comparison.experiment_ids, comparison.experiment_names or [], strict=False))
    sel.experiments = [_named(e, names.get(e.id, e.name)) for e in sel.experiments]
    return sel


def _named(experiment: Experiment, name: str) -> Experiment:
    """The experiment under the name it had when the comparison was saved: a copy outside the session
    (never flushed), so a read of a frozen comparison cannot rename anything."""
    if experiment.name == name:
        return experiment
    twin = Experiment(id=experiment.id, project_id=experiment.project_id, name=name, status=experiment.status,
                      hypothesis=experiment.hypothesis, tags=list(experiment.tags or []),
                      former_names=list(experiment.former_names or []))
    twin.created_at = experiment.created_at
    twin.updated_at = experiment.updated_at
    return twin


def describe(session: Session, *, comparisons: list[Comparison]) -> dict[str, dict[int, str]]:
    exp_ids = {i for c in comparisons for i in c.experiment_ids}
    user_ids = {c.created_by_id for c in comparisons if c.created_by_id is not None}
    proj_ids = {c.project_id for c in comparisons}
    return {
        "experiments": dict(session.execute(
            select(Experiment.id, Experiment.name).where(Experiment.id.in_(exp_ids))).all())
        if exp_ids else {},
        "users": dict(session.execute(select(User.id, User.email).where(User.id.in_(user_ids))).all())
        if user_ids else {},
        "projects": dict(session.execute(select(Project.id, Project.slug).where(Project.id.in_(proj_ids)))
                         .all()) if proj_ids else {},
    }


def creators(session: Session, *, links: list[ShareLink]) -> dict[int, str]:
    """{user id: email} of whoever created these links (not necessarily who saved the comparison)."""
    ids = {link.created_by_id for link in links if link.created_by_id is not None}
    if not ids:
        return {}
    return dict(session.execute(select(User.id, User.email).where(User.id.in_(ids))).all())


# -- share links ----------------------------------------------------------------------------------------


def create_share_link(
    session: Session, *, comparison: Comparison, user: User, expires_in_days: int = DEFAULT_EXPIRY_DAYS,
    note: str = "",
) -> tuple[str, ShareLink]:
    token = security.new_token(security.SHARE_TOKEN_PREFIX)
    prefix = len(security.SHARE_TOKEN_PREFIX)
    project = session.get(Project, comparison.project_id)
    assert project is not None  # the comparison's foreign key
    row = ShareLink(
        comparison_id=comparison.id, token_hash=security.token_hash(token), hint=token[prefix:prefix + 6],
        note=note.strip(), expires_at=now() + timedelta(days=expires_in_days), created_by_id=user.id,
        margins=verdict_settings.margins(session, project),
    )
    session.add(row)
    session.flush()
    return token, row


def list_share_links(session: Session, *, project: Project) -> list[tuple[ShareLink, Comparison]]:
    rows = session.execute(
        select(ShareLink, Comparison).join(Comparison, Comparison.id == ShareLink.comparison_id)
        .where(Comparison.project_id == project.id).order_by(ShareLink.created_at.desc(), ShareLink.id.desc())
    ).all()
    return list(rows)


def get_share_link(session: Session, *, link_id: int) -> tuple[ShareLink, Comparison]:
    row = session.execute(
        select(ShareLink, Comparison).join(Comparison, Comparison.id == ShareLink.comparison_id)
        .where(ShareLink.id == link_id)
    ).first()
    if row is None:
        raise NotFound(f"no share link {link_id}")
    return row[0], row[1]


def revoke_share_link(session: Session, *, link: ShareLink, user: User, owner: bool = False) -> ShareLink:
    """owner: the user owns the link's project (or is an admin): they may revoke any of its links."""
    if link.created_by_id != user.id and user.role != "admin" and not owner:
        raise Forbidden("only whoever created a share link, an owner of its project or an admin may revoke it")
    if link.revoked_at is None:
        link.revoked_at = now()
    session.flush()
    return link


def revoke_links_of(session: Session, *, project: Project, user_id: int) -> int:
    """Revokes every active share link `user_id` created in `project` (a member being removed). Returns how many."""
    in_project = select(Comparison.id).where(Comparison.project_id == project.id)
    result = session.execute(
        update(ShareLink)
        .where(ShareLink.created_by_id == user_id, ShareLink.revoked_at.is_(None),
               ShareLink.comparison_id.in_(in_project))
        .values(revoked_at=now())
    )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


def link_status(link: ShareLink) -> str:
    if link.revoked_at is not None:
        return "revoked"
    if link.expires_at <= now():
        return "expired"
    return "active"


def _count_view(limiter: MissLimiter, key: str, whose: str) -> None:
    retry = limiter.blocked_for(key)
    if retry:
        raise TooManyRequests(f"too many views {whose} ({limiter.max_misses} a minute); retry in {retry} s",
                              retry_after=retry)
    limiter.miss(key)


def open_share_link(session: Session, *, token: str, client: str) -> tuple[ShareLink, Comparison]:
    """The comparison behind a share token. Every failure counts towards the client's guessing limit;
    every view towards the per-address and per-link view limits."""
    share_limiter.check(client)
    _count_view(address_view_limiter, client, "from this address")
    _count_view(link_view_limiter, security.token_hash(token), "of this share link")
    link = None
    if token.startswith(security.SHARE_TOKEN_PREFIX) and len(token) <= 100:
        link = session.scalar(select(ShareLink).where(ShareLink.token_hash == security.token_hash(token)))
    if link is None:
        share_limiter.miss(client)
        raise NotFound("no such share link")
    status = link_status(link)
    if status != "active":
        share_limiter.miss(client)
        raise Gone(f"this share link was {status}")
    comparison = session.get(Comparison, link.comparison_id)
    if comparison is None:
        raise NotFound("no such share link")
    # A popular link is read by many at once: never queue on its row lock.
    touch_row(session, ShareLink, row_id=link.id, column="last_used_at", resolution=_LAST_USED_EVERY)
    return link, comparison


def check_share_overlay(
    session: Session, *, comparison: Comparison, sel: compare_selection.Selection, role: str, metric: str,
    t_start_s: float | None, t_end_s: float | None, run_ids: list[uuid.UUID] | None,
) -> tuple[float | None, float | None]:
    """Refuse anything beyond the frozen comparison: other runs, other metrics, a wider time range.

    Returns the time range to read (the frozen one when the request names none).
    """
    frozen = set(comparison.run_ids)
    if run_ids is not None and not set(run_ids) <= frozen:
        raise NotFound("a requested run is not part of this shared comparison")
    view = comparison.view_state or {}
    overlays = {(o.get("role"), o.get("metric")) for o in view.get("overlays") or []}
    if not overlays:
        overlays = compare_overlay.available_overlays(session, sel=sel)
    if (role, metric) not in overlays:
        raise Forbidden("this metric is not part of the shared comparison")
    tr = view.get("time_range")
    if tr:
        lo, hi = float(tr["start_s"]), float(tr["end_s"])
        start = lo if t_start_s is None else t_start_s
        end = hi if t_end_s is None else t_end_s
        if start < lo or end > hi:
            raise Forbidden(f"the shared comparison covers {lo:g}-{hi:g} s of each run only")
        return start, end
    return t_start_s, t_end_s


def frozen_notes(session: Session, notes: list[NoteRef], *, comparison: Comparison) -> list[NoteRef]:
    """Notes as the comparison froze them: one written (or rewritten) after it was saved is not shown.

    A comparison is immutable once saved; what its public link shows must not grow with later notes
    (RELIABILITY 15: a share token reads exactly the frozen comparison). An edited note's earlier
    text is not kept, so it is left out rather than shown as it reads now.
    """
    if not notes:
        return notes
    changed = set(session.scalars(select(Note.id).where(
        Note.id.in_([n.id for n in notes]), Note.updated_at > comparison.created_at)))
    return [n for n in notes if n.created_at <= comparison.created_at and n.id not in changed]
