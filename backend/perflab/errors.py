"""One error hierarchy: services raise AppError subclasses; one handler renders {"error", "detail"}."""

from __future__ import annotations

from typing import Any


class AppError(Exception):
    status_code = 400
    error = "bad_request"

    def __init__(self, detail: Any = None, *, headers: dict[str, str] | None = None) -> None:
        super().__init__(detail)
        self.detail = detail if detail is not None else self.error.replace("_", " ")
        self.headers = headers or {}


class BadInput(AppError):
    status_code = 400
    error = "bad_input"


class Unauthorized(AppError):
    status_code = 401
    error = "unauthorized"


class Forbidden(AppError):
    status_code = 403
    error = "forbidden"


class NotFound(AppError):
    status_code = 404
    error = "not_found"


class Conflict(AppError):
    status_code = 409
    error = "conflict"


class Gone(AppError):
    status_code = 410
    error = "gone"


class PayloadTooLarge(AppError):
    status_code = 413
    error = "payload_too_large"


class Unprocessable(AppError):
    status_code = 422
    error = "unprocessable"


class TooManyRequests(AppError):
    status_code = 429
    error = "too_many_requests"

    def __init__(self, detail: Any = None, *, retry_after: int = 60) -> None:
        super().__init__(detail, headers={"Retry-After": str(retry_after)})


class Unavailable(AppError):
    """Not the request's fault (a parser process died, a stored tree to rebuild): retry."""

    status_code = 503
    error = "server_busy"

    def __init__(self, detail: Any = None) -> None:
        super().__init__(detail, headers={"Retry-After": "5"})


class DatabaseUnavailable(AppError):
    status_code = 503
    error = "database_unavailable"

    def __init__(self, detail: Any = None, *, retry_after: int = 5) -> None:
        super().__init__(detail or "the database is unreachable; retry shortly", headers={"Retry-After": str(retry_after)})


class DatabaseBusy(DatabaseUnavailable):
    """Every pooled connection is taken (or a row stayed locked): back off and retry, it is not an outage."""

    error = "server_busy"

    def __init__(self, detail: Any = None, *, retry_after: int = 2) -> None:
        super().__init__(detail or "the server is busy (no database connection free); retry shortly",
                         retry_after=retry_after)
