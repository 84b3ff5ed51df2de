"""Agent tokens: created with 256 random bits, stored as sha256, revocable."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from perflab import security
from perflab.errors import BadInput, NotFound
from perflab.projects.models import Project
from perflab.tokens.models import AgentToken

VALID_SCOPES = ("ingest", "read")


@dataclass(frozen=True)
class TokenRef:
    """An agent token as a request's caller: what access checks and agent routes read of it. A plain
    row, not an ORM object: every agent request looks its token up, and loading the entity through the
    ORM cost more than the statement."""

    id: int
    project_id: int
    scopes: tuple[str, ...]
    last_used_at: datetime | None


# Built once (building the statement and its cache key per request cost more than running it).
_BY_HASH = select(AgentToken.id, AgentToken.project_id, AgentToken.scopes, AgentToken.last_used_at).where(
    AgentToken.token_hash == bindparam("hash"), AgentToken.revoked_at.is_(None))


def live_token(session: Session, *, secret: str) -> TokenRef | None:
    """The unrevoked token whose secret this is, or None."""
    row = session.execute(_BY_HASH, {"hash": security.token_hash(secret)}).first()
    return None if row is None else TokenRef(row.id, row.project_id, tuple(row.scopes), row.last_used_at)


def create_token(
    session: Session, *, project: Project, name: str, scopes: list[str], created_by_id: int | None = None
) -> tuple[str, AgentToken]:
    bad = [s for s in scopes if s not in VALID_SCOPES]
    if bad or not scopes:
        raise BadInput(f"scopes must be among {', '.join(VALID_SCOPES)}; got {', '.join(scopes) or 'none'}")
    token = security.new_token(security.AGENT_TOKEN_PREFIX)
    row = AgentToken(
        project_id=project.id,
        name=name,
        hint=token[len(security.AGENT_TOKEN_PREFIX) : len(security.AGENT_TOKEN_PREFIX) + 6],
        token_hash=security.token_hash(token),
        scopes=sorted(set(scopes)),
        created_by_id=created_by_id,
    )
    session.add(row)
    session.flush()
    return token, row


def list_tokens(session: Session, *, project: Project) -> list[AgentToken]:
    return list(
        session.scalars(select(AgentToken).where(AgentToken.project_id == project.id).order_by(AgentToken.id.desc()))
    )


def get_token(session: Session, *, token_id: int) -> AgentToken:
    row = session.get(AgentToken, token_id)
    if row is None:
        raise NotFound(f"no token {token_id}")
    return row


def revoke_token(session: Session, *, token: AgentToken) -> AgentToken:
    if token.revoked_at is None:
        token.revoked_at = datetime.now(UTC)
    session.flush()
    return token


def find_by_hint(session: Session, *, project: Project, hint: str) -> list[AgentToken]:
    return list(
        session.scalars(
            select(AgentToken).where(AgentToken.project_id == project.id, AgentToken.hint.startswith(hint))
        )
    )
