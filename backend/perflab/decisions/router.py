from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from perflab.decisions import service
from perflab.decisions.models import Decision
from perflab.decisions.schemas import (
    DecisionCreate,
    DecisionDraft,
    DecisionRead,
    DecisionStatus,
    DecisionUpdate,
)
from perflab.deps import (
    CurrentUser,
    OneHopRoute,
    PrincipalDep,
    ReadableProject,
    SessionDep,
    WritableProject,
    check_project_access,
    releases_connection,
    role_in,
)
from perflab.errors import Forbidden
from perflab.experiments.router import ReadableExperiment
from perflab.projects.models import Project

router = APIRouter(tags=["decisions"], route_class=OneHopRoute)


def _project(db: SessionDep, decision: Decision) -> Project:
    project = db.get(Project, decision.project_id)
    assert project is not None
    return project


@releases_connection
def readable_decision(decision_id: int, principal: PrincipalDep, db: SessionDep) -> Decision:
    decision = service.get_decision(db, decision_id=decision_id)
    check_project_access(principal, _project(db, decision), "read", missing=f"no decision {decision_id}")
    return decision


@releases_connection
def writable_decision(decision_id: int, principal: PrincipalDep, db: SessionDep) -> Decision:
    """A decision is its author's record: others may change it only as owners of the project (or admins)."""
    decision = service.get_decision(db, decision_id=decision_id)
    project = _project(db, decision)
    check_project_access(principal, project, "write", missing=f"no decision {decision_id}")
    author = principal.user is not None and decision.author_id == principal.user.id
    if not author and role_in(principal, project) not in ("owner", "admin"):
        raise Forbidden("only the author of a decision or an owner of the project may change it")
    return decision


ReadableDecision = Annotated[Decision, Depends(readable_decision)]
WritableDecision = Annotated[Decision, Depends(writable_decision)]


def _read(db: SessionDep, decisions: list[Decision]) -> list[DecisionRead]:
    d = service.details(db, decisions=decisions)
    return [
        DecisionRead(
            **DecisionRead.model_validate(x).model_dump(exclude={"experiment_name", "author_email",
                                                                 "comparison_short_id"}),
            experiment_name=d["experiments"].get(x.experiment_id, ""),
            author_email=d["authors"].get(x.author_id) if x.author_id is not None else None,
            comparison_short_id=d["comparisons"].get(x.comparison_id) if x.comparison_id is not None else None,
        )
        for x in decisions
    ]


@router.get("/api/projects/{slug}/decisions", response_model=list[DecisionRead])
def list_decisions(
    project: ReadableProject, db: SessionDep, status: DecisionStatus | None = None, experiment_id: int | None = None
) -> list[DecisionRead]:
    return _read(db, service.list_decisions(db, project=project, status=status, experiment_id=experiment_id))


@router.post("/api/projects/{slug}/decisions", response_model=DecisionRead, status_code=201)
def create_decision(body: DecisionCreate, project: WritableProject, user: CurrentUser, db: SessionDep) -> DecisionRead:
    row = service.create_decision(db, project=project, author=user, **body.model_dump())
    return _read(db, [row])[0]


@router.get("/api/decisions/{decision_id}", response_model=DecisionRead)
def get_decision(decision: ReadableDecision, db: SessionDep) -> DecisionRead:
    return _read(db, [decision])[0]


@router.patch("/api/decisions/{decision_id}", response_model=DecisionRead)
def update_decision(body: DecisionUpdate, decision: WritableDecision, _: CurrentUser, db: SessionDep) -> DecisionRead:
    row = service.update_decision(db, decision=decision, project=_project(db, decision),
                                  changes=body.model_dump(exclude_unset=True))
    return _read(db, [row])[0]


@router.delete("/api/decisions/{decision_id}", status_code=204)
def delete_decision(decision: WritableDecision, _: CurrentUser, db: SessionDep) -> None:
    service.delete_decision(db, decision=decision)


@router.get("/api/experiments/{experiment_id}/decisions/prefill", response_model=list[DecisionDraft])
def prefill_decision(experiment: ReadableExperiment, db: SessionDep, baseline: str | None = None) -> list[DecisionDraft]:
    project = db.get(Project, experiment.project_id)
    assert project is not None
    return [DecisionDraft(**d) for d in service.prefill(db, project=project, experiment=experiment, baseline=baseline)]
