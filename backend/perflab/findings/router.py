from __future__ import annotations

from fastapi import APIRouter

from perflab.deps import OneHopRoute, SessionDep
from perflab.findings import service
from perflab.findings.rules import RULES
from perflab.findings.schemas import FindingRead, RunFindings, RunUseChecklist, UseCheck
from perflab.findings.use import RESOURCES
from perflab.runs.router import ReadableRun

router = APIRouter(tags=["findings"], route_class=OneHopRoute)


@router.get("/api/runs/{run_id}/findings", response_model=RunFindings)
def run_findings(run: ReadableRun, db: SessionDep) -> RunFindings:
    """What the rules read in this run: the bottleneck, the evidence, and the knob to turn."""
    return RunFindings(run_id=run.id, rules=len(RULES),
                       findings=[FindingRead.model_validate(f) for f in service.for_run(db, run=run)])


@router.get("/api/runs/{run_id}/use", response_model=RunUseChecklist)
def run_use_checklist(run: ReadableRun, db: SessionDep) -> RunUseChecklist:
    """The USE method for this run: per resource, utilisation, saturation and errors: which checks ran, which
    found something, and what would let a missing one run."""
    return RunUseChecklist(run_id=run.id, resources=list(RESOURCES),
                           checks=[UseCheck.model_validate(c) for c in service.use_checklist(db, run=run)])
