from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from perflab.deps import CurrentUser, OneHopRoute, OwnedProject, SessionDep, owned_row
from perflab.tokens import service
from perflab.tokens.models import AgentToken
from perflab.tokens.schemas import TokenCreate, TokenCreated, TokenRead

router = APIRouter(tags=["tokens"], route_class=OneHopRoute)

OwnedToken = Annotated[AgentToken, Depends(owned_row(AgentToken, id_param="token_id", noun="token"))]


@router.get("/api/projects/{slug}/tokens", response_model=list[TokenRead])
def list_tokens(project: OwnedProject, _: CurrentUser, db: SessionDep) -> list[TokenRead]:
    return [TokenRead.model_validate(t) for t in service.list_tokens(db, project=project)]


@router.post("/api/projects/{slug}/tokens", response_model=TokenCreated, status_code=201)
def create_token(body: TokenCreate, project: OwnedProject, user: CurrentUser, db: SessionDep) -> TokenCreated:
    token, row = service.create_token(
        db, project=project, name=body.name, scopes=list(body.scopes), created_by_id=user.id
    )
    return TokenCreated(**TokenRead.model_validate(row).model_dump(), token=token)


@router.delete("/api/tokens/{token_id}", response_model=TokenRead)
def revoke_token(token: OwnedToken, _: CurrentUser, db: SessionDep) -> TokenRead:
    return TokenRead.model_validate(service.revoke_token(db, token=token))
