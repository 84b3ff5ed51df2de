from __future__ import annotations

from fastapi import APIRouter

from perflab.deps import OneHopRoute, ReadableProject, SessionDep
from perflab.hosts import service
from perflab.hosts.schemas import HostRead

router = APIRouter(tags=["hosts"], route_class=OneHopRoute)


@router.get("/api/projects/{slug}/hosts", response_model=list[HostRead])
def list_hosts(project: ReadableProject, db: SessionDep) -> list[HostRead]:
    return [
        HostRead(**HostRead.model_validate(h).model_dump(exclude={"online"}), online=service.is_online(h))
        for h in service.list_hosts(db, project=project)
    ]
