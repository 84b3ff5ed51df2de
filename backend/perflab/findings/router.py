from __future__ import annotations

from fastapi import APIRouter

from perflab.deps import OneHopRoute, SessionDep
from perflab.findings import service
from perflab.findings.rules import RULES
from perflab.findings.schemas import FindingRead, RunFindings
from perflab.runs.router import ReadableRun

router = APIRouter(tags=["findings"], route_class=OneHopRoute)


@router.get("/api/runs/{run_id}/findings", response_model=RunFindings)
def run_findings(run: ReadableRun, db: SessionDep) -> RunFindings:
    """What the rules read in this run: the bottleneck, the evidence, and the knob to turn."""
    return RunFindings(run_id=run.id, rules=len(RULES),
                       findings=[FindingRead.model_validate(f) for f in service.for_run(db, run=run)])
