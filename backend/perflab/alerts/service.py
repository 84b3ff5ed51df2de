"""Regression alerts: a project's webhooks, and the three events that queue deliveries to them.

Emitting never touches the network: it adds rows to ``webhook_delivery`` in the caller's transaction
(so an event of a rolled-back request is never sent), and ``delivery.py`` sends them later, outside
any request and without holding a lock while it waits on the receiver.

Targets are chosen by project owners (an operator's decision, like any outgoing integration): perflab
posts to whatever http(s) URL an owner registers, including addresses inside the network it runs in.
It follows no redirect and reads no more than a status line back.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import event as sa_event
from sqlalchemy import func, select
from sqlalchemy.dialects.postgresql import distinct_on, insert
from sqlalchemy.orm import Session

from perflab.alerts import wake
from perflab.alerts.models import Webhook, WebhookDelivery, WebhookSeen
from perflab.errors import BadInput
from perflab.experiments.models import Experiment
from perflab.projects.models import Project
from perflab.runs.models import Run

log = logging.getLogger(__name__)

# The metrics whose change points are announced: the two a load test is judged by.
ALERT_METRICS = ("wrk.requests_per_sec", "wrk.latency_p99_ms")
MAX_WEBHOOKS = 20


def check_url(url: str) -> str:
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadInput(f"webhook URL {url[:200]!r} must be an http:// or https:// URL with a host")
    if any(c.isspace() for c in url):
        raise BadInput("webhook URL must be an http(s) URL without spaces")
    return url


def list_webhooks(session: Session, *, project: Project) -> list[tuple[Webhook, WebhookDelivery | None]]:
    hooks = list(session.scalars(select(Webhook).where(Webhook.project_id == project.id).order_by(Webhook.id)))
    last: dict[int, WebhookDelivery] = {}
    if hooks:
        rows = session.scalars(
            select(WebhookDelivery).ext(distinct_on(WebhookDelivery.webhook_id))
            .where(WebhookDelivery.webhook_id.in_([h.id for h in hooks]))
            .order_by(WebhookDelivery.webhook_id, WebhookDelivery.id.desc()))
        last = {d.webhook_id: d for d in rows}
    return [(h, last.get(h.id)) for h in hooks]


def create_webhook(session: Session, *, project: Project, name: str, url: str, format: str, events: list[str],
                   alpha: float, created_by_id: int | None) -> Webhook:
    count = len(session.scalars(select(Webhook.id).where(Webhook.project_id == project.id)).all())
    if count >= MAX_WEBHOOKS:
        raise BadInput(f"a project has at most {MAX_WEBHOOKS} webhooks; delete one first")
    hook = Webhook(project_id=project.id, name=name.strip(), url=check_url(url), format=format, events=events,
                   alpha=alpha, secret=secrets.token_hex(32), created_by_id=created_by_id)
    session.add(hook)
    session.flush()
    if "change_point" in events:
        # Only change points that appear from now on are news: the ones already there are marked seen.
        for metric in ALERT_METRICS:
            for keys in _change_points(session, project, metric, alpha):
                for key in keys[1]:
                    _first(session, hook, key)
    return hook


def delete_webhook(session: Session, *, webhook: Webhook) -> None:
    session.delete(webhook)
    session.flush()


def deliveries(session: Session, *, webhook: Webhook, limit: int = 20) -> list[WebhookDelivery]:
    return list(session.scalars(select(WebhookDelivery).where(WebhookDelivery.webhook_id == webhook.id)
                                .order_by(WebhookDelivery.id.desc()).limit(limit)))


def _first(session: Session, hook: Webhook, key: str) -> bool:
    """Mark ``key`` announced by ``hook``; True when it was not before."""
    inserted = session.scalar(insert(WebhookSeen).values(webhook_id=hook.id, key=key[:300])
                              .on_conflict_do_nothing().returning(WebhookSeen.key))
    return inserted is not None


def _seen(session: Session, hook: Webhook, keys: list[str]) -> bool:
    """Whether any of ``keys`` was announced by ``hook``; marks them all announced. The first key's
    insert decides between two requests racing on the same news."""
    already = session.scalar(select(func.count()).select_from(WebhookSeen)
                             .where(WebhookSeen.webhook_id == hook.id, WebhookSeen.key.in_(keys)))
    won = _first(session, hook, keys[0])
    for key in keys[1:]:
        _first(session, hook, key)
    return bool(already) or not won


def _wake_after_commit(session: Session) -> None:
    """Wake the delivery loop once this transaction commits (a rollback sends nothing)."""
    if session.info.get("alerts_wake"):
        return
    session.info["alerts_wake"] = True

    def committed(_: Session) -> None:
        session.info.pop("alerts_wake", None)
        wake.notify()

    sa_event.listen(session, "after_commit", committed, once=True)


def queue(session: Session, *, hook: Webhook, project: Project, event: str, text: str, data: dict[str, Any]) -> None:
    if hook.format == "slack":
        body: dict[str, Any] = {"text": text}
    else:
        body = {"event": event, "project": project.slug, "text": text, "data": data,
                "sent_at": datetime.now(UTC).isoformat()}
    session.add(WebhookDelivery(webhook_id=hook.id, event=event, body=json.dumps(body, default=str),
                                status="pending", attempts=0, next_attempt_at=datetime.now(UTC)))
    _wake_after_commit(session)


def _hooks(session: Session, project_id: int, event: str) -> list[Webhook]:
    return list(session.scalars(select(Webhook).where(Webhook.project_id == project_id,
                                                      Webhook.events.contains([event]))))


def _change_points(session: Session, project: Project, metric: str,
                   alpha: float) -> list[tuple[dict[str, Any], list[str]]]:
    """The change points of a metric, each with its keys: its experiment and both neighbours. As a
    history grows, the estimated place of one step can move by an experiment; it stays one alert."""
    from perflab.trends import service as trends_service  # trends imports nothing of alerts; keep it so

    doc = trends_service.trend(session, project=project, metric=metric, alpha=alpha)
    ids = [e["experiment_id"] for e in doc["experiments"]]
    out = []
    for cp in doc["change_points"]:
        i = cp["index"]
        out.append((cp, [f"cp:{metric}:{ids[j]}" for j in (i, i - 1, i + 1) if 0 <= j < len(ids)]))
    return out


def _pct(v: float | None) -> str:
    return "?" if v is None else f"{v:+.1f}%"


def run_completed(session: Session, *, run: Run) -> int:
    """A run finished (recorded or imported): announce new change points of the alert metrics and
    findings that appear in its experiment for the first time. Returns the deliveries queued."""
    cp_hooks = _hooks(session, run.project_id, "change_point")
    finding_hooks = _hooks(session, run.project_id, "finding")
    if not cp_hooks and not finding_hooks:
        return 0
    project = session.get(Project, run.project_id)
    assert project is not None
    queued = 0
    trends: dict[tuple[str, float], list[tuple[dict[str, Any], list[str]]]] = {}
    for hook in cp_hooks:
        for metric in ALERT_METRICS:
            key = (metric, hook.alpha)
            if key not in trends:
                trends[key] = _change_points(session, project, metric, hook.alpha)
            for cp, keys in trends[key]:
                if _seen(session, hook, keys):
                    continue
                label = metric.removeprefix("wrk.")
                text = (f"{project.name}: {label} changed {_pct(cp['delta_pct'])} at {cp['experiment']} "
                        f"({cp['before_median']:,.4g} → {cp['after_median']:,.4g}, after {cp['previous_experiment']})")
                queue(session, hook=hook, project=project, event="change_point", text=text,
                      data={"metric": metric, **cp, "alpha": hook.alpha,
                            "path": f"/p/{project.slug}/trends?metric={metric}"})
                queued += 1
    if finding_hooks:
        from perflab.findings import service as findings_service

        experiment = session.get(Experiment, run.experiment_id)
        name = experiment.name if experiment is not None else "?"
        found = findings_service.for_run(session, run=run, experiment=name)
        for hook in finding_hooks:
            for f in found:
                if not _first(session, hook, f"finding:{run.experiment_id}:{f['rule']}"):
                    continue
                text = f"{project.name}: new {f['severity']} finding in {name}: {f['title']}"
                queue(session, hook=hook, project=project, event="finding", text=text,
                      data={"rule": f["rule"], "severity": f["severity"], "title": f["title"], "experiment": name,
                            "run_id": str(run.id), "path": f"/p/{project.slug}/runs/{run.id}"})
                queued += 1
    return queued


def announce_run(session: Session, *, run: Run) -> None:
    """The hook ingest and imports call when a run is complete: alerts must never fail the request that
    finished the run, so their work runs in a savepoint and a failure is logged, not raised."""
    try:
        with session.begin_nested():
            run_completed(session, run=run)
    except Exception:
        log.warning("webhook events for run %s were not queued", run.id, exc_info=True)


def gate_failed(session: Session, *, project: Project, baseline: str, experiments: Sequence[str],
                failures: Sequence[str], exit_code: int) -> int:
    queued = 0
    for hook in _hooks(session, project.id, "gate_failed"):
        text = (f"{project.name}: CI gate failed (exit {exit_code}): {', '.join(experiments)} against {baseline}: "
                + "; ".join(failures[:5]) + (f" (+{len(failures) - 5} more)" if len(failures) > 5 else ""))
        queue(session, hook=hook, project=project, event="gate_failed", text=text,
              data={"baseline": baseline, "experiments": list(experiments), "failures": list(failures),
                    "exit_code": exit_code})
        queued += 1
    return queued
