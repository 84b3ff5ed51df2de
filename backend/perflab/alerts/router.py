"""Webhooks: owners manage them; members and agent tokens with the ingest scope report a failed gate."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from perflab.alerts import service
from perflab.alerts.models import Webhook
from perflab.alerts.schemas import DeliveryRead, GateAccepted, GateFailed, WebhookCreate, WebhookCreated, WebhookRead
from perflab.deps import CurrentUser, OneHopRoute, OwnedProject, SessionDep, WritableProject, owned_row

router = APIRouter(tags=["alerts"], route_class=OneHopRoute)

OwnedWebhook = Annotated[Webhook, Depends(owned_row(Webhook, id_param="webhook_id", noun="webhook"))]


@router.get("/api/projects/{slug}/webhooks", response_model=list[WebhookRead])
def list_webhooks(project: OwnedProject, _: CurrentUser, db: SessionDep) -> list[WebhookRead]:
    """The project's webhooks with their last delivery (owners only)."""
    return [WebhookRead.model_validate(h).model_copy(update={
        "last_delivery": DeliveryRead.model_validate(d) if d is not None else None})
        for h, d in service.list_webhooks(db, project=project)]


@router.post("/api/projects/{slug}/webhooks", response_model=WebhookCreated, status_code=201)
def create_webhook(body: WebhookCreate, project: OwnedProject, user: CurrentUser, db: SessionDep) -> WebhookCreated:
    """Register a webhook; its signing secret is in this answer only."""
    hook = service.create_webhook(db, project=project, name=body.name, url=body.url, format=body.format,
                                  events=list(body.events), alpha=body.alpha, created_by_id=user.id)
    return WebhookCreated(**WebhookRead.model_validate(hook).model_dump(), secret=hook.secret)


@router.get("/api/webhooks/{webhook_id}/deliveries", response_model=list[DeliveryRead])
def list_deliveries(webhook: OwnedWebhook, _: CurrentUser, db: SessionDep) -> list[DeliveryRead]:
    """The webhook's latest 20 deliveries, newest first."""
    return [DeliveryRead.model_validate(d) for d in service.deliveries(db, webhook=webhook)]


@router.delete("/api/webhooks/{webhook_id}", status_code=204)
def delete_webhook(webhook: OwnedWebhook, _: CurrentUser, db: SessionDep) -> None:
    service.delete_webhook(db, webhook=webhook)


@router.post("/api/projects/{slug}/gate-failures", response_model=GateAccepted, status_code=202)
def gate_failed(body: GateFailed, project: WritableProject, db: SessionDep) -> GateAccepted:
    """What `perflab-agent compare --fail-on ...` reports when it fails a build: the project's
    gate_failed webhooks are notified."""
    n = service.gate_failed(db, project=project, baseline=body.baseline, experiments=body.experiments,
                            failures=body.failures, exit_code=body.exit_code)
    return GateAccepted(deliveries=n)
