"""Hosts: the machines with an agent, registered by the agent's hello."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from perflab.db import touch_row
from perflab.hosts.models import Host
from perflab.projects.models import Project

# A daemon long-polls every <= 30 s and heartbeats every 10 s: silent for 60 s means gone.
ONLINE_WINDOW = timedelta(seconds=60)


def is_online(host: Host, now: datetime | None = None) -> bool:
    now = now or datetime.now(UTC)
    return host.last_seen_at is not None and now - host.last_seen_at <= ONLINE_WINDOW


def list_hosts(session: Session, *, project: Project) -> list[Host]:
    return list(session.scalars(select(Host).where(Host.project_id == project.id).order_by(Host.role, Host.hostname)))



# last_seen_at only needs to be about right (ONLINE_WINDOW is 60 s): refresh it at most this often.
SEEN_RESOLUTION = timedelta(seconds=2)


def mark_seen(session: Session, *, host_id: int, seen: datetime | None = None) -> None:
    """Refresh last_seen_at without waiting for the host row's lock (see db.touch_row).

    Every poll, join and batch of a daemon lands here; with ~70 runs joining at once, updates queued
    on this one row filled the connection pool (issue 9).
    """
    touch_row(session, Host, row_id=host_id, column="last_seen_at", resolution=SEEN_RESOLUTION, seen=seen)
