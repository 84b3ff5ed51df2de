"""Profiles: import an upload (any supported format) into a run, and read it back as the views need.

Services take the session and keyword arguments, flush but never commit (the request's unit of
work does). Parsing is perflab.parsers.profiles; this module only stores and looks up.
"""

from __future__ import annotations

import gzip
import uuid
from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from perflab.artifacts import service as artifacts_service
from perflab.config import get_settings
from perflab.errors import BadInput, NotFound, PayloadTooLarge, Unprocessable
from perflab.experiments.models import Experiment
from perflab.parsers import profiles as parser
from perflab.profiles.models import Profile, ProfileFunction
from perflab.projects.models import Project
from perflab.runs.models import Run

# A profile keeps every function in its table; reading "the top N" is the common case.
DEFAULT_FUNCTION_LIMIT = 200
# Function rows stored per profile, by total and by self: the most GET .../functions returns.
MAX_STORED_FUNCTIONS = 100_000
# Tree and diff responses: frames sent by default and at most (see parser.tree).
DEFAULT_VIEW_NODES = parser.TREE_MAX_NODES
MAX_VIEW_NODES = 200_000


def parse_profile_id(value: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError:
        raise BadInput(f"{value[:60]!r} is not a profile id (a UUID)") from None


def import_profile(
    session: Session, *, run: Run, data: bytes, name: str, role: str = "", unit: str | None = None
) -> Profile:
    """Parse an upload, store the original as an artifact and the profile with its functions.

    Bad input is a 422 naming the line and the problem; a decompressed size over the cap is 413.
    """
    if not data:
        raise BadInput("the request body is empty: send the profile's bytes")
    cap = get_settings().max_decompressed_bytes
    try:
        parsed = parser.load_profile(data, name=name, unit=unit, max_bytes=cap)
        # Before parsed.frames: the function table's tree counts the frames too (and stops at
        # the node limit: a 413 like any size cap).
        table = parser.function_table(parsed)
    except parser.ProfileError as exc:
        if exc.too_large:
            raise PayloadTooLarge(str(exc)) from None
        raise Unprocessable(f"{name or 'upload'}: {exc}") from None
    artifact = artifacts_service.store(
        session, project_id=run.project_id, run_id=run.id, kind="flamegraph", name=name or "profile",
        data=data, role=role,
    )
    row = Profile(
        id=uuid.uuid4(),
        run_id=run.id,
        project_id=run.project_id,
        role=role,
        name=artifacts_service.clean_name(name or parsed.format),
        format=parsed.format,
        unit=parsed.unit,
        event=parsed.event[:200] if parsed.event else None,
        total=parsed.total,
        frames=parsed.frames,
        stacks=len(parsed.stacks),
        lossy=parsed.lossy,
        tolerance=parsed.tolerance,
        warnings=parsed.warnings[:50],
        folded_gz=parser.to_folded_gz(parsed),
        artifact_id=artifact.id,
    )
    session.add(row)
    session.flush()
    if table:
        _store_functions(session, profile_id=row.id, run_id=run.id, table=table)
    return row


def _store_functions(
    session: Session, *, profile_id: uuid.UUID, run_id: uuid.UUID, table: list[parser.FunctionRow]
) -> None:
    """The function table's rows that a read can ask for: the MAX_STORED_FUNCTIONS first by total
    (``rank`` keeps their order) and by self, through COPY: an executemany of 45,000 rows took
    10 s and held the interpreter lock, so /api/health answered in 0.6 s meanwhile (issue 21)."""
    keep: Sequence[int] = range(len(table))
    if len(table) > MAX_STORED_FUNCTIONS:
        by_self = sorted(range(len(table)), key=lambda i: (-table[i].self, i))[:MAX_STORED_FUNCTIONS]
        keep = sorted(set(range(MAX_STORED_FUNCTIONS)) | set(by_self))
    raw = session.connection().connection.driver_connection
    assert raw is not None  # a checked-out connection always has its psycopg connection
    with raw.cursor() as cur, cur.copy(
        "COPY profile_function (profile_id, rank, run_id, name, self_value, total_value) FROM STDIN"
    ) as copy:
        for rank in keep:
            f = table[rank]
            copy.write_row((profile_id, rank, run_id, f.name, f.self, f.total))


def get_profile(session: Session, *, profile_id: uuid.UUID) -> Profile:
    row = session.get(Profile, profile_id)
    if row is None:
        raise NotFound(f"no profile {profile_id}")
    return row


def load(row: Profile) -> parser.Profile:
    """The stored folded stacks as a parser Profile (exactly what was imported)."""
    profile = parser.load_folded(row.folded_gz, unit=row.unit, name=row.name)
    profile.format, profile.event, profile.lossy = row.format, row.event, row.lossy
    profile.tolerance, profile.warnings = row.tolerance, list(row.warnings)
    return profile


def _viewable(row: Profile) -> parser.Profile:
    """A stored profile ready for a view; one stored before the node limit that is past it is a
    413 naming the limit (its folded download still works)."""
    try:
        return load(row)
    except parser.ProfileError as exc:
        raise PayloadTooLarge(str(exc)) from None


def tree(row: Profile, *, max_nodes: int = DEFAULT_VIEW_NODES, min_share: float = 0.0) -> dict[str, Any]:
    try:
        return parser.tree(_viewable(row), max_nodes=max_nodes, min_share=min_share)
    except parser.ProfileError as exc:
        raise PayloadTooLarge(f"profile {row.id}: {exc}") from None


def functions(session: Session, *, profile: Profile, limit: int = DEFAULT_FUNCTION_LIMIT) -> list[ProfileFunction]:
    stmt = (
        select(ProfileFunction)
        .where(ProfileFunction.profile_id == profile.id)
        .order_by(ProfileFunction.rank)
        .limit(limit)
    )
    return list(session.scalars(stmt))


def top_by_self(session: Session, *, profile: Profile, limit: int = 20) -> list[ProfileFunction]:
    stmt = (
        select(ProfileFunction)
        .where(ProfileFunction.profile_id == profile.id, ProfileFunction.self_value > 0)
        .order_by(ProfileFunction.self_value.desc(), ProfileFunction.rank)
        .limit(limit)
    )
    return list(session.scalars(stmt))


def diff(
    base: Profile, other: Profile, *, max_nodes: int = DEFAULT_VIEW_NODES, min_share: float = 0.0
) -> dict[str, Any]:
    """The merged tree of two profiles with both counts per node; see parser.ProfileDiff."""
    if base.unit != other.unit:
        raise BadInput(
            f"cannot diff {base.unit} with {other.unit}: profiles must count the same unit"
        )
    try:
        merged = parser.diff_profiles(_viewable(base), _viewable(other))
    except parser.ProfileError as exc:
        raise PayloadTooLarge(str(exc)) from None
    result = merged.to_json(max_nodes=max_nodes, min_share=min_share)
    result["unit"] = base.unit
    return result


def original(session: Session, *, profile: Profile) -> tuple[bytes, str]:
    """The upload as it came, and its display name."""
    if profile.artifact_id is None:
        raise NotFound(f"profile {profile.id} has no original upload any more")
    artifact = artifacts_service.get_artifact(session, artifact_id=profile.artifact_id)
    return artifacts_service.read(artifact), artifact.name


def folded(profile: Profile) -> bytes:
    return gzip.decompress(profile.folded_gz)


def list_for_run(session: Session, *, run_id: uuid.UUID) -> list[Profile]:
    stmt = select(Profile).where(Profile.run_id == run_id, Profile.deleted_at.is_(None)).order_by(Profile.created_at, Profile.id)
    return list(session.scalars(stmt))


def list_for_project(session: Session, *, project_id: int, limit: int = 500) -> list[dict[str, Any]]:
    """Profiles of a project, newest first, with the run and experiment they belong to."""
    stmt = (
        select(Profile, Run.label, Experiment.id, Experiment.name)
        .join(Run, Run.id == Profile.run_id)
        .join(Experiment, Experiment.id == Run.experiment_id)
        .where(Profile.project_id == project_id, Profile.deleted_at.is_(None))
        .order_by(Profile.created_at.desc(), Profile.id)
        .limit(limit)
    )
    return [
        {"profile": p, "run_label": label, "experiment_id": exp_id, "experiment_name": exp_name}
        for p, label, exp_id, exp_name in session.execute(stmt)
    ]


def context(session: Session, *, profile: Profile) -> dict[str, Any]:
    """The run label and experiment of one profile (for its metadata)."""
    row = session.execute(
        select(Run.label, Experiment.id, Experiment.name)
        .join(Experiment, Experiment.id == Run.experiment_id)
        .where(Run.id == profile.run_id)
    ).first()
    if row is None:
        return {"run_label": None, "experiment_id": None, "experiment_name": None}
    return {"run_label": row[0], "experiment_id": row[1], "experiment_name": row[2]}


def project_of(session: Session, *, profile: Profile) -> Project:
    project = session.get(Project, profile.project_id)
    if project is None:  # the FK cascades: a profile without its project cannot exist
        raise NotFound(f"no profile {profile.id}")
    return project


def set_unit(session: Session, *, profile: Profile, unit: str) -> Profile:
    """Relabels the counts (values stay as uploaded); the upload's guess about the unit goes with it."""
    unit = unit.strip().lower()
    if unit == "ns":
        unit = "nanoseconds"
    profile.unit = unit
    profile.warnings = [w for w in profile.warnings or [] if "look like sampling periods" not in w]
    session.flush()
    return profile
