from __future__ import annotations

from fastapi import APIRouter

from perflab.deps import CurrentUser, ReadableProject, SessionDep
from perflab.tokens import service
from perflab.tokens.schemas import TokenCreate, TokenCreated, TokenRead

router = APIRouter(tags=["tokens"])


@router.get("/api/projects/{slug}/tokens", response_model=list[TokenRead])
def list_tokens(project: ReadableProject, _: CurrentUser, db: SessionDep) -> list[TokenRead]:
    return [TokenRead.model_validate(t) for t in service.list_tokens(db, project=project)]


@router.post("/api/projects/{slug}/tokens", response_model=TokenCreated, status_code=201)
def create_token(body: TokenCreate, project: ReadableProject, user: CurrentUser, db: SessionDep) -> TokenCreated:
    token, row = service.create_token(
        db, project=project, name=body.name, scopes=list(body.scopes), created_by_id=user.id
    )
    return TokenCreated(**TokenRead.model_validate(row).model_dump(), token=token)


@router.delete("/api/tokens/{token_id}", response_model=TokenRead)
def revoke_token(token_id: int, _: CurrentUser, db: SessionDep) -> TokenRead:
    return TokenRead.model_validate(service.revoke_token(db, token=service.get_token(db, token_id=token_id)))
