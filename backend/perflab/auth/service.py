"""Accounts and sessions. Services flush; the request's unit of work commits."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from perflab import security
from perflab.auth.models import KnownDevice, User, UserSession
from perflab.errors import BadInput, Conflict, Unauthorized

MIN_PASSWORD_LEN = 12
KNOWN_DEVICE_DAYS = 365
# Browsers remembered per account: a login from a new one forgets the oldest beyond this.
MAX_KNOWN_DEVICES = 20


def create_user(session: Session, *, email: str, password: str, role: str = "member") -> User:
    email = email.strip().lower()
    if len(password) < MIN_PASSWORD_LEN:
        raise BadInput(f"password must have at least {MIN_PASSWORD_LEN} characters")
    if role not in ("admin", "member"):
        raise BadInput("role must be admin or member")
    if session.scalar(select(User).where(User.email == email)) is not None:
        raise Conflict(f"a user with email {email} already exists")
    user = User(email=email, password_hash=security.hash_password(password), role=role)
    session.add(user)
    session.flush()
    return user


def count_users(session: Session) -> int:
    return session.scalar(select(func.count()).select_from(User)) or 0


def authenticate(session: Session, *, email: str, password: str) -> User:
    user = session.scalar(select(User).where(User.email == email.strip().lower()))
    if user is None or not user.is_active:
        security.burn_password_check(password)
        raise Unauthorized("wrong email or password")
    if not security.verify_password(user.password_hash, password):
        raise Unauthorized("wrong email or password")
    return user


def start_session(session: Session, *, user: User, days: int) -> tuple[str, UserSession]:
    token = security.new_token()
    row = UserSession(
        user_id=user.id,
        token_hash=security.token_hash(token),
        csrf_token=secrets.token_urlsafe(32),
        expires_at=datetime.now(UTC) + timedelta(days=days),
    )
    session.add(row)
    session.flush()
    return token, row


def session_user(session: Session, *, token: str) -> tuple[User, UserSession] | None:
    row = session.scalar(select(UserSession).where(UserSession.token_hash == security.token_hash(token)))
    if row is None or row.expires_at <= datetime.now(UTC):
        return None
    user = session.get(User, row.user_id)
    if user is None or not user.is_active:
        return None
    now = datetime.now(UTC)
    # Touch at most once a minute so reads don't turn every request into a write.
    if row.last_seen_at is None or now - row.last_seen_at > timedelta(minutes=1):
        row.last_seen_at = now
    return user, row


def end_session(session: Session, *, session_id: int) -> None:
    session.execute(delete(UserSession).where(UserSession.id == session_id))


def change_password(
    session: Session, *, user: User, current_password: str, new_password: str, keep_session_id: int | None
) -> None:
    if not security.verify_password(user.password_hash, current_password):
        raise Unauthorized("the current password is wrong")
    set_password(session, user=user, password=new_password, keep_session_id=keep_session_id)


def set_password(session: Session, *, user: User, password: str, keep_session_id: int | None = None) -> None:
    if len(password) < MIN_PASSWORD_LEN:
        raise BadInput(f"password must have at least {MIN_PASSWORD_LEN} characters")
    user.password_hash = security.hash_password(password)
    user.password_changed_at = datetime.now(UTC)
    # A password change ends every other session of the account.
    stmt = delete(UserSession).where(UserSession.user_id == user.id)
    if keep_session_id is not None:
        stmt = stmt.where(UserSession.id != keep_session_id)
    session.execute(stmt)
    # ...and forgets every browser it was used from: they count towards the login limit again.
    forget_devices(session, user_id=user.id)
    session.flush()


def is_known_device(session: Session, *, email: str, cookie: str | None) -> bool:
    """Whether this browser's known-device cookie is a live one of the account `email`."""
    if not cookie or len(cookie) > 100:
        return False
    found = session.scalar(
        select(KnownDevice.id).join(User, User.id == KnownDevice.user_id)
        .where(KnownDevice.token_hash == security.token_hash(cookie), User.email == email.strip().lower(),
               KnownDevice.expires_at > datetime.now(UTC))
    )
    return found is not None


def remember_device(session: Session, *, user: User, cookie: str | None) -> str:
    """A new known-device cookie for this browser after a successful login; the one it sent is retired."""
    if cookie:
        session.execute(delete(KnownDevice).where(KnownDevice.user_id == user.id,
                                                  KnownDevice.token_hash == security.token_hash(cookie)))
    token = security.new_token()
    session.add(KnownDevice(user_id=user.id, token_hash=security.token_hash(token),
                            expires_at=datetime.now(UTC) + timedelta(days=KNOWN_DEVICE_DAYS)))
    session.flush()
    stale = select(KnownDevice.id).where(KnownDevice.user_id == user.id).order_by(
        KnownDevice.created_at.desc(), KnownDevice.id.desc()).offset(MAX_KNOWN_DEVICES)
    session.execute(delete(KnownDevice).where(KnownDevice.id.in_(stale)))
    return token


def forget_devices(session: Session, *, user_id: int) -> int:
    result = session.execute(delete(KnownDevice).where(KnownDevice.user_id == user_id))
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


def list_users(session: Session) -> list[User]:
    return list(session.scalars(select(User).order_by(User.id)))


def bootstrap_admin(session: Session, *, email: str | None, password: str | None) -> tuple[str, str] | None:
    """Create the first admin on an empty database. Returns (email, password) when one was generated."""
    if count_users(session) > 0:
        return None
    generated = password is None
    email = email or "admin@localhost"
    password = password or secrets.token_urlsafe(15)
    create_user(session, email=email, password=password, role="admin")
    return (email, password) if generated else None
