from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from perflab.schemas_base import RequestModel


class ProfileCreated(BaseModel):
    """What an upload answers (also what `perflab-agent upload --json` prints)."""

    profile_id: uuid.UUID
    format: str
    unit: str
    total: int
    frames: int
    lossy: bool
    warnings: list[str]


class ProfileUpdate(RequestModel):
    """Correct what a count is after upload (e.g. perf's nanosecond periods uploaded as samples)."""

    unit: str = Field(min_length=1, max_length=32, pattern=r"^[A-Za-z][A-Za-z0-9_ -]*$")


class ProfileRead(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    profile_id: uuid.UUID
    run_id: uuid.UUID
    name: str
    role: str
    format: str
    unit: str
    event: str | None
    total: int
    frames: int
    stacks: int
    lossy: bool
    # Frames under this share of the total may be missing (lossy SVG imports); null otherwise.
    tolerance: float | None
    warnings: list[str]
    artifact_id: int | None
    created_at: datetime
    experiment_id: int | None = None
    experiment_name: str | None = None
    run_label: str | None = None


class FunctionRow(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    name: str
    # In the profile's unit; total counts a recursive function once per stack.
    self_value: int
    total_value: int


class FunctionTable(BaseModel):
    profile_id: uuid.UUID
    unit: str
    total: int
    functions: list[FunctionRow]


class TreePruned(BaseModel):
    """What a bounded tree left out: ``nodes`` frames, summed into ``groups`` "[pruned]" nodes
    (one under each frame that lost children) holding ``total``; the smallest total kept is
    ``min_total``. ``nodes == 0``: the whole tree is there."""

    nodes: int
    groups: int
    total: int
    max_nodes: int
    min_total: float


class ProfileTree(BaseModel):
    """The merged call tree: nodes are [name_idx, self, total, parent_idx] in pre-order, node 0
    the root "all" (parent -1); siblings sorted by name; at most max_nodes frames plus the
    "[pruned]" nodes that stand for the rest (see ``pruned``)."""

    unit: str
    total: int
    names: list[str]
    nodes: list[list[int]]
    pruned: TreePruned


class DiffPruned(BaseModel):
    """Like TreePruned for a diff: a node's score is its share of the base plus its share of the
    other; ``min_share`` is the smallest score kept."""

    nodes: int
    groups: int
    total_base: int
    total_other: int
    max_nodes: int
    min_share: float


class ProfileDiff(BaseModel):
    """Both profiles in one tree: nodes are [name_idx, parent_idx, self_base, total_base,
    self_other, total_other] (raw counts); factor = base_total / other_total scales the other
    to the base's total. Functions are sorted by the size of their normalised total change."""

    unit: str
    base_total: int
    other_total: int
    factor: float
    names: list[str]
    nodes: list[list[int]]
    pruned: DiffPruned
    # The largest changes first; functions_total counts them all.
    functions: list[dict[str, str | int | float]]
    functions_total: int
