"""Profiles: import an upload (any supported format) into a run, and read it back as the views need.

Services take the session and keyword arguments, flush but never commit (the request's unit of
work does). Parsing is perflab.parsers.profiles; this module only stores and looks up.
"""

from __future__ import annotations

import gzip
import logging
import os
import tempfile
import uuid
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from perflab.artifacts import service as artifacts_service
from perflab.artifacts.models import Artifact
from perflab.artifacts.storage import Stored
from perflab.config import get_settings
from perflab.errors import AppError, BadInput, NotFound, PayloadTooLarge, Unavailable, Unprocessable
from perflab.experiments.models import Experiment
from perflab.parsers import profiles as parser
from perflab.profiles import parsing
from perflab.profiles.models import Profile, ProfileFunction
from perflab.projects.models import Project
from perflab.runs.models import Run

log = logging.getLogger(__name__)

# A profile keeps every function in its table; reading "the top N" is the common case.
DEFAULT_FUNCTION_LIMIT = 200
MAX_STORED_FUNCTIONS = parsing.MAX_STORED_FUNCTIONS
# Tree and diff responses: frames sent by default and at most (see parser.tree).
DEFAULT_VIEW_NODES = parser.TREE_MAX_NODES
MAX_VIEW_NODES = 200_000


def parse_profile_id(value: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError:
        raise BadInput(f"{value[:60]!r} is not a profile id (a UUID)") from None


def _profile_error(exc: Exception, name: str) -> AppError:
    """A parse failure as the answer it deserves: 413 for a size cap, 422 naming the line, 503
    when the parser process died."""
    if isinstance(exc, parsing.ParserDied):
        return Unavailable(f"{name or 'upload'}: {exc}; retry later, or upload a smaller profile")
    if isinstance(exc, MemoryError):
        return PayloadTooLarge(f"{name or 'upload'}: parsing it needs more memory than the server allows")
    assert isinstance(exc, parser.ProfileError)
    if exc.too_large:
        return PayloadTooLarge(str(exc))
    return Unprocessable(f"{name or 'upload'}: {exc}")


PARSE_ERRORS = (parser.ProfileError, parsing.ParserDied, MemoryError)


def import_profile(
    session: Session, *, run: Run, data: bytes, name: str, role: str = "", unit: str | None = None
) -> Profile:
    """Parse an upload in this thread, store the original as an artifact and the profile with its
    call tree and functions (tools and tests; the upload route parses in the pool, see
    :func:`parse_stored`). Bad input is a 422 naming the line; past a size cap, 413."""
    if not data:
        raise BadInput("the request body is empty: send the profile's bytes")
    profile_id = uuid.uuid4()
    with tempfile.TemporaryDirectory(prefix="perflab-profile-") as tmp:
        try:
            parsed = parsing.parse_bytes(
                data, name=name, unit=unit, max_bytes=get_settings().max_decompressed_bytes,
                profile_id=profile_id, run_id=run.id, functions_path=os.path.join(tmp, "functions.copy"))
        except PARSE_ERRORS as exc:
            raise _profile_error(exc, name) from None
        artifact = artifacts_service.store(
            session, project_id=run.project_id, run_id=run.id, kind="flamegraph", name=name or "profile",
            data=data, role=role,
        )
        return add_parsed(session, run=run, profile_id=profile_id, artifact=artifact, parsed=parsed, name=name,
                          role=role)


async def parse_stored(stored: Stored, *, run_id: uuid.UUID, profile_id: uuid.UUID, name: str,
                       unit: str | None, workdir: str) -> parsing.Parsed:
    """Parse an upload already in artifact storage, in a pool process (profiles/parsing.py); the
    function table lands in ``workdir``. Raises the AppError the upload deserves."""
    if stored.size == 0:
        raise BadInput("the request body is empty: send the profile's bytes")
    settings = get_settings()
    try:
        return await parsing.run(
            parsing.parse_stored, settings=settings, key=stored.key, name=name, unit=unit,
            max_bytes=settings.max_decompressed_bytes, profile_id=profile_id, run_id=run_id,
            functions_path=os.path.join(workdir, "functions.copy"))
    except PARSE_ERRORS as exc:
        raise _profile_error(exc, name) from None


def add_parsed(session: Session, *, run: Run, profile_id: uuid.UUID, artifact: Artifact, parsed: parsing.Parsed,
               name: str, role: str) -> Profile:
    """The profile row, its stored tree and its function rows (the original is ``artifact``)."""
    row = Profile(
        id=profile_id,
        run_id=run.id,
        project_id=run.project_id,
        role=role,
        name=artifacts_service.clean_name(name or parsed.format),
        format=parsed.format,
        unit=parsed.unit,
        event=parsed.event,
        total=parsed.total,
        frames=parsed.frames,
        stacks=parsed.stacks,
        lossy=parsed.lossy,
        tolerance=parsed.tolerance,
        warnings=parsed.warnings,
        folded_gz=parsed.folded_gz,
        tree_z=parsed.tree_z,
        artifact_id=artifact.id,
    )
    session.add(row)
    session.flush()
    if parsed.functions:
        _copy_functions(session, parsed.functions_path)
    return row


def _copy_functions(session: Session, path: str) -> None:
    """The function rows the parser wrote as COPY text, streamed a MiB at a time: an executemany of
    45,000 rows took 10 s and held the interpreter lock, so /api/health answered in 0.6 s meanwhile
    (issue 21); the rows of a 200,000-function profile are never whole in this process."""
    raw = session.connection().connection.driver_connection
    assert raw is not None  # a checked-out connection always has its psycopg connection
    with raw.cursor() as cur, cur.copy(
        "COPY profile_function (profile_id, rank, run_id, name, self_value, total_value) FROM STDIN"
    ) as copy, open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            copy.write(block)


def get_profile(session: Session, *, profile_id: uuid.UUID) -> Profile:
    row = session.get(Profile, profile_id)
    if row is None:
        raise NotFound(f"no profile {profile_id}")
    return row


def load(session: Session, row: Profile) -> parser.Profile:
    """The stored folded stacks as a parser Profile (exactly what was imported)."""
    profile = parser.load_folded(_folded_gz(session, row), unit=row.unit, name=row.name)
    profile.format, profile.event, profile.lossy = row.format, row.event, row.lossy
    profile.tolerance, profile.warnings = row.tolerance, list(row.warnings)
    return profile


def _folded_gz(session: Session, row: Profile) -> bytes:
    data = session.scalar(select(Profile.folded_gz).where(Profile.id == row.id))
    if data is None:
        raise NotFound(f"no profile {row.id}")
    return data


def _tree_z(session: Session, row: Profile) -> bytes:
    """The stored call tree; a profile stored before trees were gets its tree built from its folded
    stacks (in the parser pool), stored, and read from then on. Commits what it read first (unlike
    other services): no connection is held while a tree is built or viewed."""
    data = session.scalar(select(Profile.tree_z).where(Profile.id == row.id))
    if data is None:
        folded_gz = _folded_gz(session, row)
        session.commit()
        try:
            data = parsing.run_blocking(parsing.derive_tree, folded_gz=folded_gz, unit=row.unit, name=row.name)
        except PARSE_ERRORS as exc:
            # A profile stored before the node limit that is past it: its folded download still works.
            raise _profile_error(exc, row.name) from None
        del folded_gz
        session.execute(update(Profile).where(Profile.id == row.id).values(tree_z=data))
    session.commit()
    return data


def _view(session: Session, rows: list[Profile], fn: Any, blobs: list[bytes], **kwargs: Any) -> bytes:
    """``fn(*blobs, **kwargs)``: in this thread for small trees, else in the parser pool. A stored
    tree that cannot be read is dropped (the next read rebuilds it from the folded stacks): 503."""
    try:
        if sum(map(len, blobs)) <= parsing.INLINE_VIEW_BYTES:
            return bytes(fn(*blobs, **kwargs))
        return bytes(parsing.run_blocking(parsing.call_view, fn=fn, blobs=blobs, kwargs=kwargs))
    except parser.ProfileError as exc:
        if exc.too_large:
            raise PayloadTooLarge(str(exc)) from None
        ids = [r.id for r in rows]
        log.error("profiles %s: stored call tree unreadable (%s); rebuilt on the next read", ids, exc)
        session.execute(update(Profile).where(Profile.id.in_(ids)).values(tree_z=None))
        session.commit()
        raise Unavailable(f"profile {rows[0].id}: its stored call tree was unreadable; retry") from None
    except parsing.ParserDied as exc:
        # Not the profile's fault (the upload is fine): nothing to do but ask again.
        raise Unavailable(f"{rows[0].name}: {exc} while building this view; retry") from None
    except MemoryError as exc:
        raise _profile_error(exc, rows[0].name) from None


def derive_missing(session: Session, *, limit: int | None = None) -> int:
    """Build the call tree of every profile stored without one (`perflab profile derive`); returns
    how many were built. One profile per transaction."""
    ids = list(session.scalars(select(Profile.id).where(Profile.tree_z.is_(None)).order_by(Profile.created_at)
                               .limit(limit)))
    session.commit()
    built = 0
    for pid in ids:
        row = session.get(Profile, pid)
        if row is None:
            continue
        try:
            _tree_z(session, row)
            built += 1
        except AppError as exc:
            log.warning("profile %s: %s", pid, exc)
            session.rollback()
    return built


def tree(session: Session, row: Profile, *, max_nodes: int = DEFAULT_VIEW_NODES, min_share: float = 0.0) -> bytes:
    """The JSON body of the bounded tree (see parser.tree), from the stored call tree."""
    return _view(session, [row], parsing.tree_view, [_tree_z(session, row)], unit=row.unit, max_nodes=max_nodes,
                 min_share=min_share)


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
    session: Session, base: Profile, other: Profile, *, max_nodes: int = DEFAULT_VIEW_NODES, min_share: float = 0.0
) -> bytes:
    """The JSON body of the merged tree of two profiles with both counts per node (see
    parser.ProfileDiff), from their stored call trees."""
    if base.unit != other.unit:
        raise BadInput(
            f"cannot diff {base.unit} with {other.unit}: profiles must count the same unit"
        )
    blobs = [_tree_z(session, base), _tree_z(session, other)]
    return _view(session, [base, other], parsing.diff_view, blobs, unit=base.unit, max_nodes=max_nodes,
                 min_share=min_share)


def original(session: Session, *, profile: Profile) -> tuple[bytes, str]:
    """The upload as it came, and its display name."""
    if profile.artifact_id is None:
        raise NotFound(f"profile {profile.id} has no original upload any more")
    artifact = artifacts_service.get_artifact(session, artifact_id=profile.artifact_id)
    return artifacts_service.read(artifact), artifact.name


def folded(session: Session, profile: Profile) -> bytes:
    return gzip.decompress(_folded_gz(session, profile))


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
