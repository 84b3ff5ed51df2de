from __future__ import annotations

from fastapi import APIRouter, Request, Response

from perflab.auth import service
from perflab.auth.schemas import LoginRequest, Me, PasswordChange, UserCreate, UserRead
from perflab.config import get_settings
from perflab.deps import (
    CSRF_COOKIE,
    SESSION_COOKIE,
    AdminUser,
    CurrentUser,
    OneHopRoute,
    PrincipalDep,
    SessionDep,
)
from perflab.errors import Forbidden, Unauthorized
from perflab.ratelimit import KNOWN_DEVICE_COOKIE, MissLimiter, account_limiter, login_limiter

# Per account: a stolen session must not be able to guess the current password to take the account over.
password_limiter = MissLimiter(max_misses=5, window_s=15 * 60, what="password checks for this account")

router = APIRouter(prefix="/api/auth", tags=["auth"], route_class=OneHopRoute)


def _same_origin(request: Request) -> None:
    # Login has no session yet, so CSRF is checked on the Origin header, exactly.
    origin = request.headers.get("origin")
    if origin is None:
        return
    expected = f"{request.url.scheme}://{request.headers.get('host', '')}"
    if origin != expected:
        raise Forbidden(f"cross-origin login refused (Origin {origin!r} is not {expected!r})")


@router.post("/login", response_model=Me)
def login(body: LoginRequest, request: Request, response: Response, db: SessionDep) -> Me:
    _same_origin(request)
    settings = get_settings()
    client = request.client.host if request.client else "unknown"
    account = body.email.strip().lower()
    login_limiter.check(client)
    device = request.cookies.get(KNOWN_DEVICE_COOKIE)
    known = service.is_known_device(db, email=account, cookie=device)
    if not known:
        account_limiter.check(account)
    try:
        user = service.authenticate(db, email=body.email, password=body.password)
    except Exception:
        login_limiter.miss(client)
        account_limiter.miss(account)
        raise
    token, row = service.start_session(db, user=user, days=settings.session_days)
    max_age = settings.session_days * 86400
    response.set_cookie(
        SESSION_COOKIE, token, max_age=max_age, httponly=True, samesite="lax", secure=settings.cookie_secure
    )
    response.set_cookie(
        CSRF_COOKIE, row.csrf_token, max_age=max_age, httponly=False, samesite="lax", secure=settings.cookie_secure
    )
    _set_device_cookie(response, service.remember_device(db, user=user, cookie=device))
    return Me(**UserRead.model_validate(user).model_dump(), csrf_token=row.csrf_token)


def _set_device_cookie(response: Response, value: str) -> None:
    response.set_cookie(
        KNOWN_DEVICE_COOKIE, value, max_age=service.KNOWN_DEVICE_DAYS * 86400, httponly=True,
        samesite="strict", secure=get_settings().cookie_secure, path="/api/auth/login",
    )


@router.post("/logout", status_code=204)
def logout(principal: PrincipalDep, response: Response, db: SessionDep) -> None:
    if principal.user_session is not None:
        service.end_session(db, session_id=principal.user_session.id)
    response.delete_cookie(SESSION_COOKIE)
    response.delete_cookie(CSRF_COOKIE)


@router.get("/me", response_model=Me)
def me(principal: PrincipalDep, user: CurrentUser) -> Me:
    assert principal.user_session is not None
    return Me(**UserRead.model_validate(user).model_dump(), csrf_token=principal.user_session.csrf_token)


@router.post("/password", status_code=204)
def change_password(body: PasswordChange, principal: PrincipalDep, user: CurrentUser, db: SessionDep,
                    response: Response) -> None:
    """Ends the account's other sessions and forgets its other browsers; this one is remembered anew."""
    key = str(user.id)
    password_limiter.check(key)
    try:
        service.change_password(
            db,
            user=user,
            current_password=body.current_password,
            new_password=body.new_password,
            keep_session_id=principal.user_session.id if principal.user_session else None,
        )
    except Unauthorized:
        password_limiter.miss(key)
        raise
    _set_device_cookie(response, service.remember_device(db, user=user, cookie=None))


@router.delete("/devices", status_code=204)
def forget_devices(user: CurrentUser, db: SessionDep, response: Response) -> None:
    """Forgets every browser this account logged in from (a lost laptop): each counts towards the
    account's login limit again until it logs in anew."""
    service.forget_devices(db, user_id=user.id)
    response.delete_cookie(KNOWN_DEVICE_COOKIE, path="/api/auth/login")


users_router = APIRouter(prefix="/api/users", tags=["users"], route_class=OneHopRoute)


@users_router.get("", response_model=list[UserRead])
def list_users(_: AdminUser, db: SessionDep) -> list[UserRead]:
    return [UserRead.model_validate(u) for u in service.list_users(db)]


@users_router.post("", response_model=UserRead, status_code=201)
def create_user(body: UserCreate, _: AdminUser, db: SessionDep) -> UserRead:
    return UserRead.model_validate(service.create_user(db, email=body.email, password=body.password, role=body.role))
