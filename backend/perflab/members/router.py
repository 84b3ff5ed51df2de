from __future__ import annotations

from fastapi import APIRouter, Response

from perflab.deps import CurrentUser, OneHopRoute, OwnedProject, PrincipalDep, ReadableProject, SessionDep, role_in
from perflab.members import service
from perflab.members.schemas import MemberAdd, MemberRead, MembersReply, MemberUpdate
from perflab.sharing import service as sharing_service

router = APIRouter(tags=["members"], route_class=OneHopRoute)


@router.get("/api/projects/{slug}/members", response_model=MembersReply)
def list_members(project: ReadableProject, principal: PrincipalDep, db: SessionDep) -> MembersReply:
    """Everyone who can read a project sees who else can; ``my_role`` tells the UI what to offer."""
    return MembersReply(my_role=role_in(principal, project) if principal.user is not None else None,  # type: ignore[arg-type]
                        members=[MemberRead(**m) for m in service.list_members(db, project=project)])


@router.post("/api/projects/{slug}/members", response_model=MemberRead, status_code=201)
def add_member(body: MemberAdd, project: OwnedProject, _: CurrentUser, db: SessionDep, response: Response
               ) -> MemberRead:
    """Adds a user by email, or changes the role of one already there (200)."""
    member, created = service.add_member(db, project=project, email=body.email, role=body.role)
    if not created:
        response.status_code = 200
    return MemberRead(**member)


@router.patch("/api/projects/{slug}/members/{user_id}", response_model=MemberRead)
def update_member(user_id: int, body: MemberUpdate, project: OwnedProject, _: CurrentUser, db: SessionDep
                  ) -> MemberRead:
    return MemberRead(**service.update_member(db, project=project, user_id=user_id, role=body.role))


@router.delete("/api/projects/{slug}/members/{user_id}", status_code=204)
def remove_member(user_id: int, project: OwnedProject, _: CurrentUser, db: SessionDep,
                  revoke_share_links: bool = False) -> None:
    """revoke_share_links: also revoke every active public link this member created in the project,
    which would otherwise stay valid until it expires (up to 365 days)."""
    service.remove_member(db, project=project, user_id=user_id)
    if revoke_share_links:
        sharing_service.revoke_links_of(db, project=project, user_id=user_id)
