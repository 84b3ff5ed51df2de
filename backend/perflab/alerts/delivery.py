"""Sending queued webhook deliveries: off the request path, with retries and a signature.

Each pass claims due deliveries in a short transaction (``FOR UPDATE SKIP LOCKED``, so several
servers share the work), pushes their next attempt out by a lease and commits, and only then posts
them: no lock or connection is held while a receiver is slow. The outcome is recorded in another short
transaction. A delivery is retried with exponential backoff (2, 4, 8, 16, 32 s) up to
``MAX_ATTEMPTS`` attempts; 2xx is delivered, anything else (an error status, a timeout, a refused
connection, a redirect) is a failed attempt with its reason kept.

Every request carries ``X-Perflab-Signature: sha256=<hex HMAC-SHA256 of the body with the webhook's
secret>``, ``X-Perflab-Event`` and ``X-Perflab-Delivery``.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import urllib.error
import urllib.request
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select

from perflab import __version__
from perflab.alerts import wake
from perflab.alerts.models import Webhook, WebhookDelivery
from perflab.db import unit_of_work

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 6
BACKOFF_S = 2.0
TIMEOUT_S = 10.0
# A claimed delivery is not claimed again before this: a server that died mid-send retries it later.
LEASE_S = 2 * TIMEOUT_S
POLL_S = 2.0
BATCH = 20


def signature(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


@dataclass
class Claimed:
    id: int
    event: str
    body: str
    url: str
    secret: str
    attempt: int


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # a redirect is answered as the 3xx it is: a failed attempt, never followed


_opener = urllib.request.build_opener(_NoRedirect)


def post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int | None, str | None]:
    """(HTTP status or None, error or None)."""
    request = urllib.request.Request(url, data=body, method="POST", headers=headers)
    try:
        with _opener.open(request, timeout=TIMEOUT_S) as response:
            status = int(response.status)
    except urllib.error.HTTPError as e:
        return e.code, f"HTTP {e.code} {e.reason}"[:500]
    except (urllib.error.URLError, OSError, ValueError) as e:
        reason = getattr(e, "reason", e)
        return None, f"{type(e).__name__}: {reason}"[:500]
    if 200 <= status < 300:
        return status, None
    return status, f"HTTP {status}"


def claim(now: datetime, limit: int = BATCH) -> list[Claimed]:
    with unit_of_work() as session:
        rows = session.execute(
            select(WebhookDelivery, Webhook.url, Webhook.secret)
            .join(Webhook, Webhook.id == WebhookDelivery.webhook_id)
            .where(WebhookDelivery.status == "pending", WebhookDelivery.next_attempt_at <= now)
            .order_by(WebhookDelivery.next_attempt_at).limit(limit)
            .with_for_update(of=WebhookDelivery, skip_locked=True)
        ).all()
        out = []
        for d, url, secret in rows:
            d.attempts += 1
            d.next_attempt_at = now + timedelta(seconds=LEASE_S)
            out.append(Claimed(d.id, d.event, d.body, url, secret, d.attempts))
        return out


def record(c: Claimed, status: int | None, error: str | None) -> None:
    with unit_of_work() as session:
        d = session.get(WebhookDelivery, c.id)
        if d is None:
            return  # the webhook was deleted meanwhile
        d.response_status = status
        now = datetime.now(UTC)
        if error is None:
            d.status, d.delivered_at, d.last_error = "delivered", now, None
        else:
            d.last_error = error
            if c.attempt >= MAX_ATTEMPTS:
                d.status = "failed"
            else:
                d.next_attempt_at = now + timedelta(seconds=BACKOFF_S * 2 ** (c.attempt - 1))


def send(c: Claimed) -> None:
    body = c.body.encode()
    status, error = post(c.url, body, {
        "Content-Type": "application/json",
        "User-Agent": f"perflab/{__version__}",
        "X-Perflab-Event": c.event,
        "X-Perflab-Delivery": str(c.id),
        "X-Perflab-Signature": signature(c.secret, body),
    })
    record(c, status, error)


def deliver_due() -> int:
    """One pass: send what is due. Returns how many were attempted."""
    claimed = claim(datetime.now(UTC))
    for c in claimed:
        send(c)
    return len(claimed)


def next_due() -> float:
    """Seconds until the next pending delivery is due (at most POLL_S)."""
    with unit_of_work() as session:
        at = session.scalar(select(WebhookDelivery.next_attempt_at).where(WebhookDelivery.status == "pending")
                            .order_by(WebhookDelivery.next_attempt_at).limit(1))
    if at is None:
        return POLL_S
    return min(POLL_S, max(0.05, (at - datetime.now(UTC)).total_seconds()))


async def deliver_forever() -> None:
    """The server's delivery loop (started by the app's lifespan): each pass in a worker thread."""
    while True:
        try:
            while await asyncio.to_thread(deliver_due):
                pass
            pause = await asyncio.to_thread(next_due)
        except Exception:
            log.warning("webhook delivery pass failed; trying again in %.0f s", POLL_S, exc_info=True)
            pause = POLL_S
        await wake.wait(pause)
