"""Request bodies a route reads itself (streamed off the event loop) documented as if FastAPI read them.

A route that declares a pydantic body gets it decoded and validated on the event loop, whole in memory.
Routes that must not (a 64 MB import) take the Request instead and name their body model here: the
OpenAPI document shows the same schema, under the same component name, as a declared body would.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)
_BODIES: dict[str, type[BaseModel]] = {}
_REF = "#/components/schemas/{model}"


def json_body(model: type[BaseModel]) -> dict[str, Any]:
    """``openapi_extra`` for a route whose JSON body is ``model``."""
    _BODIES[model.__name__] = model
    # FastAPI documents the 422 of any route with a body or parameters; a route reading its own body has it too.
    invalid = {"description": "Validation Error", "content": {
        "application/json": {"schema": {"$ref": _REF.format(model="HTTPValidationError")}}}}
    return {"requestBody": {"required": True, "content": {
        "application/json": {"schema": {"$ref": _REF.format(model=model.__name__)}}}},
        "responses": {"422": invalid}}


def add_bodies(document: dict[str, Any]) -> dict[str, Any]:
    """Put the schemas of the models named by :func:`json_body` (and the models they use) in
    ``document``'s components."""
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    for name, model in sorted(_BODIES.items()):
        schema = model.model_json_schema(ref_template=_REF, mode="validation")
        for sub, sub_schema in schema.pop("$defs", {}).items():
            schemas.setdefault(sub, _as_fastapi(sub_schema))
        schemas.setdefault(name, _as_fastapi(schema))
    document["components"]["schemas"] = dict(sorted(schemas.items()))
    return document


def _as_fastapi(schema: dict[str, Any]) -> dict[str, Any]:
    # FastAPI leaves out a property's `"default": null`; the document must not differ by who read the body.
    for prop in schema.get("properties", {}).values():
        if "default" in prop and prop["default"] is None:
            del prop["default"]
    return schema


def body_errors(exc: ValidationError) -> list[dict[str, Any]]:
    """A body's validation errors as FastAPI's 422 lists them (``loc`` from ``body``), plain data."""
    return [{"loc": ["body", *e["loc"]], "msg": e["msg"], "type": e["type"]}
            for e in exc.errors(include_url=False, include_context=False, include_input=False)]


def validated(model: type[M], data: bytes) -> M:
    """``data`` (a JSON body a route read itself) as ``model``, or FastAPI's 422 for a declared body.

    Parsed and validated in one pass by pydantic-core: FastAPI's own path decodes the JSON with the json
    module into Python objects first, then validates those."""
    from fastapi.exceptions import RequestValidationError

    try:
        return model.model_validate_json(data)
    except ValidationError as exc:
        raise RequestValidationError(body_errors(exc)) from None
