"""What any client may send: one base model for request bodies, one guard for query and path values.

PostgreSQL cannot store NUL in text or jsonb, has no NaN/Infinity in jsonb and 64-bit integers at
most; Python accepts all of these, so without a check they surface as 500s deep in a service
(issue 9: 386 tracebacks). Every request schema derives from `RequestModel`, and `check_params`
(an app-wide dependency) applies the same rules to every query and path parameter by its declared
type, so a new route gets them without thinking about it.
"""

from __future__ import annotations

import math
import types
import typing
from typing import Annotated, Any, ClassVar, Union

from fastapi import Request
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from perflab.errors import Unprocessable

BIGINT_MIN = -(2**63)
BIGINT_MAX = 2**63 - 1
# Wall-clock seconds since the epoch: 1970 .. 2200. Beyond it is a unit mistake or an attack.
EPOCH_MAX_S = 7_258_118_400.0
# Relative seconds (offsets, windows of a run): a year is more than any run lasts.
SPAN_MAX_S = 366 * 86400.0

BigInt = Annotated[int, Field(ge=BIGINT_MIN, le=BIGINT_MAX)]
Count = Annotated[int, Field(ge=0, le=BIGINT_MAX)]
FiniteFloat = Annotated[float, Field(allow_inf_nan=False)]
Timestamp = Annotated[float, Field(ge=0, le=EPOCH_MAX_S, allow_inf_nan=False)]
Seconds = Annotated[float, Field(ge=-SPAN_MAX_S, le=SPAN_MAX_S, allow_inf_nan=False)]
Page = Annotated[int, Field(ge=1, le=1_000_000)]
PageSize = Annotated[int, Field(ge=1, le=500)]

NUL = "\x00"
# Any float a query carries (seconds into a run, thresholds) is far below this; 1e300 is an attack.
QUERY_FLOAT_MAX = 1e12


# The `type` of a refusal whose message names the field itself, in plain words, so the UI shows it as is
# ("the field hypothesis contains a NUL character ...") rather than after a dotted path.
UNSTORABLE = "unstorable_value"


def human_field(where: str) -> str:
    """`body_md` -> "body (Markdown)", `facts.cpu_count` -> "facts.cpu count": a field as a person reads it."""
    if where.endswith("_md"):
        where = where[:-3] + " (Markdown)"
    return where.replace("_", " ")


def problem(value: Any, where: str) -> str | None:
    """Why `value` (any JSON value, nested) cannot be stored, in plain words naming where, or None."""
    if isinstance(value, str):
        return (f"the field {human_field(where)} contains a NUL character (\\0), which perflab cannot store as "
                "text") if NUL in value else None
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return None if BIGINT_MIN <= value <= BIGINT_MAX else (
            f"the field {human_field(where)} is outside the 64-bit integer range")
    if isinstance(value, float):
        return None if math.isfinite(value) else f"the field {human_field(where)} is not a finite number"
    if isinstance(value, dict):
        for key, item in value.items():
            found = problem(key, f"{where} (a key)") or problem(item, f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(value, list | tuple | set | frozenset):
        for index, item in enumerate(value):
            found = problem(item, f"{where}[{index}]")
            if found:
                return found
    return None


def replace_nul_in_lines(lines: list[tuple[float, float, str]]) -> list[tuple[float, float, str]]:
    """Captured tool output: a NUL is stored as U+FFFD rather than refusing the batch (and stalling the
    stream behind it). One join finds the rare batch that has one: a check per line costs 0.4 s per
    200,000 lines."""
    if NUL not in "".join(text for _, _, text in lines):
        return lines
    return [(wall, mono, text.replace(NUL, "\ufffd")) for wall, mono, text in lines]


class RequestModel(BaseModel):
    """Base of every request body: no NUL in any text, only finite floats, 64-bit integers.

    Fields named in `typed_fields` are skipped by the generic walk because their element types
    enforce the rules already (a batch's 200,000 lines: walking them in Python costs ~1 s).
    """

    model_config = ConfigDict(allow_inf_nan=False)
    typed_fields: ClassVar[frozenset[str]] = frozenset()

    @field_validator("*", mode="after")
    @classmethod
    def _storable(cls, value: Any, info: ValidationInfo) -> Any:
        name = info.field_name or "value"
        if name in cls.typed_fields or isinstance(value, BaseModel):
            return value  # validated by its own class
        found = problem(value, name)
        if found:
            # Its own type, not "value_error": the message is a whole sentence naming the field.
            raise PydanticCustomError(UNSTORABLE, found)
        return value


def _scalar_types(annotation: Any) -> set[type]:
    """int/float/str (and the like) behind Optional, list[...] and Annotated."""
    origin = typing.get_origin(annotation)
    if origin is Annotated:
        return _scalar_types(typing.get_args(annotation)[0])
    if origin in (Union, types.UnionType, list, tuple, set, frozenset):
        out: set[type] = set()
        for arg in typing.get_args(annotation):
            out |= _scalar_types(arg)
        return out
    return {annotation} if isinstance(annotation, type) else set()


def _check_value(name: str, raw: str, kinds: set[type]) -> str | None:
    if NUL in raw:
        return f"the parameter {name} contains a NUL character (\\0), which perflab cannot store as text"
    if float in kinds:
        try:
            number = float(raw)
        except ValueError:
            return None  # not a number at all: the route's own validation names it
        if not math.isfinite(number) or abs(number) > QUERY_FLOAT_MAX:
            return f"the parameter {name} must be a finite number below {QUERY_FLOAT_MAX:g} in size, not {raw!r}"
    elif int in kinds and raw.strip().lstrip("+-").isdigit() and not BIGINT_MIN <= int(raw) <= BIGINT_MAX:
        return f"the parameter {name} is outside the 64-bit integer range"
    return None


def check_params(request: Request) -> None:
    """App-wide dependency: every query and path value obeys the rules above, by declared type."""
    route = request.scope.get("route")
    if not isinstance(route, APIRoute):
        return
    pending = [route.dependant]
    while pending:
        dependant = pending.pop()
        pending.extend(dependant.dependencies)
        for where, source, fields in (("query", request.query_params, dependant.query_params),
                                      ("path", request.path_params, dependant.path_params)):
            for field in fields:
                kinds = _scalar_types(field.field_info.annotation)
                values = (source.getlist(field.alias) if hasattr(source, "getlist")
                          else [source[field.alias]] if field.alias in source else [])
                for raw in values:
                    found = _check_value(field.alias, str(raw), kinds)
                    if found:
                        raise Unprocessable(_invalid(where, field.alias, found))
    for key, raw in request.query_params.multi_items():
        if NUL in key or NUL in raw:
            name = key.replace(NUL, "?")
            raise Unprocessable(_invalid("query", name, f"the parameter {name} contains a NUL character (\\0), "
                                                        "which perflab cannot store as text"))


def _invalid(where: str, name: str, message: str) -> list[dict[str, Any]]:
    """A refusal shaped like FastAPI's own validation errors, which is what the OpenAPI document promises
    for a 422 (and what the UI reads field by field)."""
    return [{"loc": [where, name], "msg": message, "type": UNSTORABLE}]
