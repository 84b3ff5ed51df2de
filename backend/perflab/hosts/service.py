"""Hosts: the machines with an agent, registered by the agent's hello."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from perflab.hosts.models import Host
from perflab.projects.models import Project

# A daemon long-polls every <= 30 s and heartbeats every 10 s: silent for 60 s means gone.
ONLINE_WINDOW = timedelta(seconds=60)


def is_online(host: Host, now: datetime | None = None) -> bool:
    now = now or datetime.now(UTC)
    return host.last_seen_at is not None and now - host.last_seen_at <= ONLINE_WINDOW


def list_hosts(session: Session, *, project: Project) -> list[Host]:
    return list(session.scalars(select(Host).where(Host.project_id == project.id).order_by(Host.role, Host.hostname)))
