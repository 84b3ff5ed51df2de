"""Experiments and the project history query (paginated, sortable, filterable, all in SQL)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Float, String, cast, func, or_, select
from sqlalchemy.dialects.postgresql import ARRAY, distinct_on
from sqlalchemy.orm import Session

from perflab import versioning
from perflab.compare import validity
from perflab.decisions.models import Decision
from perflab.errors import BadInput, Conflict, NotFound
from perflab.experiments.models import Experiment
from perflab.projects.models import Project
from perflab.runs.models import Run

SORTS = ("created", "name", "rps", "p99", "last_run", "runs", "status")


def _clean_tags(tags: list[str]) -> list[str]:
    out = []
    for t in tags:
        t = t.strip()
        if t and t not in out:
            if len(t) > 64:
                raise BadInput(f"tag {t[:20]!r}... is longer than 64 characters")
            out.append(t)
    return out


def create_experiment(
    session: Session, *, project: Project, name: str, hypothesis: str = "", tags: list[str] | None = None,
    status: str = "planned",
) -> Experiment:
    name = name.strip()
    if not name:
        raise BadInput("experiment name must not be empty")
    if find_by_name(session, project=project, name=name) is not None:
        raise Conflict(f"project {project.slug!r} already has an experiment named {name!r}")
    exp = Experiment(
        project_id=project.id, name=name, hypothesis=hypothesis, tags=_clean_tags(tags or []), status=status
    )
    session.add(exp)
    session.flush()
    return exp


def find_by_name(session: Session, *, project: Project, name: str) -> Experiment | None:
    """In the trash or not: a name stays taken until the trash is purged."""
    return session.scalar(select(Experiment).where(Experiment.project_id == project.id, Experiment.name == name))


def _not_trashed(exp: Experiment) -> Experiment:
    if exp.deleted_at is not None:
        raise Conflict(f"experiment {exp.name!r} is in the project's trash: restore it there, or use another name")
    return exp


def get_or_create(session: Session, *, project: Project, name: str, hypothesis: str = "") -> Experiment:
    exp = find_by_name(session, project=project, name=name.strip())
    if exp is not None:
        return _not_trashed(exp)
    # Two agents creating the same experiment at once: the unique constraint decides, retry once.
    nested = session.begin_nested()
    try:
        exp = create_experiment(session, project=project, name=name, hypothesis=hypothesis)
        nested.commit()
        return exp
    except Exception:
        nested.rollback()
        found = find_by_name(session, project=project, name=name.strip())
        if found is None:
            raise
        return _not_trashed(found)


def get_experiment(session: Session, *, experiment_id: int) -> Experiment:
    """The experiment, in the trash or not (routes check access first, then `live`)."""
    exp = session.get(Experiment, experiment_id)
    if exp is None:
        raise NotFound(f"no experiment {experiment_id}")
    return exp


def live(exp: Experiment) -> Experiment:
    if exp.deleted_at is not None:
        raise NotFound(f"experiment {exp.name!r} is in the trash; restore it from the project's Trash to see it")
    return exp


def update_experiment(session: Session, *, experiment: Experiment, changes: dict[str, Any]) -> Experiment:
    versioning.bump(session, experiment, sent=changes.get("version"),
                    what=f"experiment {experiment.name!r} (its name, hypothesis, tags or status)")
    if "name" in changes and changes["name"] is not None:
        new = changes["name"].strip()
        if new != experiment.name:
            project = session.get(Project, experiment.project_id)
            assert project is not None
            other = find_by_name(session, project=project, name=new)
            if other is not None:
                where = " (in the trash)" if other.deleted_at is not None else ""
                raise Conflict(f"another experiment{where} is already named {new!r}")
            experiment.former_names = [n for n in experiment.former_names or [] if n != new] + [experiment.name]
            experiment.name = new
    if changes.get("hypothesis") is not None:
        experiment.hypothesis = changes["hypothesis"]
    if changes.get("tags") is not None:
        experiment.tags = _clean_tags(changes["tags"])
    if changes.get("status") is not None:
        experiment.status = changes["status"]
    session.flush()
    return experiment


def _headline_num(key: str) -> Any:
    return cast(Run.headline[key].astext, Float)


def history(
    session: Session,
    *,
    project: Project,
    page: int = 1,
    page_size: int = 50,
    sort: str = "created",
    order: str = "desc",
    q: str | None = None,
    tags: list[str] | None = None,
    status: str | None = None,
    created_after: datetime | None = None,
    created_before: datetime | None = None,
    experiment_ids: list[int] | None = None,
    decision: str | None = None,
    include_archived: bool = False,
) -> dict[str, Any]:
    """Archived experiments are left out unless asked for (`include_archived`, or `status=archived`)."""
    if sort not in SORTS:
        raise BadInput(f"sort must be one of {', '.join(SORTS)}")
    if order not in ("asc", "desc"):
        raise BadInput("order must be asc or desc")
    if page < 1 or not 1 <= page_size <= 500:
        raise BadInput("page starts at 1 and page_size is 1..500")

    # The latest decision of each experiment: its status is the history's "decision" column and filter.
    latest = (
        select(Decision.experiment_id, Decision.id, Decision.status, Decision.component, Decision.knob,
               Decision.before, Decision.after, Decision.updated_at)
        .where(Decision.project_id == project.id)
        .ext(distinct_on(Decision.experiment_id))
        .order_by(Decision.experiment_id, Decision.updated_at.desc(), Decision.id.desc())
        .subquery()
    )
    # The experiments the filters keep: counted, and paged before any run is aggregated when the sort
    # is an experiment's own column (a project's thousands of runs need not be read for 50 rows).
    kept = select(Experiment.id).where(Experiment.project_id == project.id, Experiment.deleted_at.is_(None))
    if not include_archived and status != "archived":
        kept = kept.where(Experiment.status != "archived")
    if decision == "none":
        kept = kept.outerjoin(latest, latest.c.experiment_id == Experiment.id).where(latest.c.id.is_(None))
    elif decision:
        if decision not in ("proposed", "adopted", "rejected", "inconclusive"):
            raise BadInput("decision must be proposed, adopted, rejected, inconclusive or none")
        kept = kept.join(latest, latest.c.experiment_id == Experiment.id).where(latest.c.status == decision)
    if q:
        like = f"%{q.strip()}%"
        kept = kept.where(or_(Experiment.name.ilike(like), Experiment.hypothesis.ilike(like)))
    if tags:
        kept = kept.where(Experiment.tags.contains(cast(tags, ARRAY(String(64)))))
    if status:
        kept = kept.where(Experiment.status == status)
    if created_after:
        kept = kept.where(Experiment.created_at >= created_after)
    if created_before:
        kept = kept.where(Experiment.created_at < created_before)
    if experiment_ids is not None:
        kept = kept.where(Experiment.id.in_(experiment_ids))
    total = session.scalar(select(func.count()).select_from(kept.subquery())) or 0

    own_sort: Any = {"created": Experiment.created_at, "name": Experiment.name, "status": Experiment.status}.get(sort)
    page_ids: list[int] | None = None
    if own_sort is not None:
        by = own_sort.desc().nulls_last() if order == "desc" else own_sort.asc().nulls_last()
        page_ids = list(session.scalars(
            kept.order_by(by, Experiment.id.desc()).limit(page_size).offset((page - 1) * page_size)))

    # Invalid runs (error responses, no requests, a cut load stream) stay out of the medians, counted.
    invalid = func.coalesce(validity.invalid_sql(validity.thresholds(project)), False)
    # Runs a user excluded stay out of the medians too, counted apart.
    left_out = invalid | Run.excluded
    runs_q = (
        select(
            Run.experiment_id.label("experiment_id"),
            func.count().label("run_count"),
            func.count().filter(Run.status.in_(("pending", "running"))).label("running_count"),
            func.count().filter(invalid & ~Run.excluded).label("invalid_runs"),
            func.count().filter(Run.excluded).label("excluded_runs"),
            # When the data was captured: an import of last week's files is dated last week.
            func.max(func.coalesce(Run.started_at, Run.created_at)).label("last_run_at"),
            func.percentile_cont(0.5).within_group(_headline_num("requests_per_sec")).filter(~left_out).label("rps"),
            func.percentile_cont(0.5).within_group(_headline_num("latency_p99_ms")).filter(~left_out).label("p99"),
            func.percentile_cont(0.5).within_group(_headline_num("latency_p50_ms")).filter(~left_out).label("p50"),
            func.sum(func.coalesce(cast(Run.headline["errors"].astext, Float), 0)).filter(~Run.excluded)
            .label("errors"),
        )
        .where(Run.project_id == project.id, Run.deleted_at.is_(None))
        .group_by(Run.experiment_id)
    )
    if page_ids is not None:
        runs_q = runs_q.where(Run.experiment_id.in_(page_ids))
    runs = runs_q.subquery()
    stmt = (
        select(Experiment, runs, latest.c.id.label("decision_id"), latest.c.status.label("decision_status"),
               latest.c.component.label("decision_component"), latest.c.knob.label("decision_knob"),
               latest.c.before.label("decision_before"), latest.c.after.label("decision_after"),
               latest.c.updated_at.label("decision_updated_at"))
        .outerjoin(runs, runs.c.experiment_id == Experiment.id)
        .outerjoin(latest, latest.c.experiment_id == Experiment.id)
        .where(Experiment.id.in_(page_ids if page_ids is not None else kept.scalar_subquery()))
    )
    sort_col: Any = {
        "created": Experiment.created_at,
        "name": Experiment.name,
        "rps": runs.c.rps,
        "p99": runs.c.p99,
        "last_run": runs.c.last_run_at,
        "runs": runs.c.run_count,
        "status": Experiment.status,
    }[sort]
    sort_expr = sort_col.desc().nulls_last() if order == "desc" else sort_col.asc().nulls_last()
    stmt = stmt.order_by(sort_expr, Experiment.id.desc())
    if page_ids is None:
        stmt = stmt.limit(page_size).offset((page - 1) * page_size)
    items = []
    for row in session.execute(stmt).all():
        exp: Experiment = row[0]
        items.append(
            {
                "experiment": exp,
                "run_count": row.run_count or 0,
                "running_count": row.running_count or 0,
                "invalid_runs": row.invalid_runs or 0,
                "excluded_runs": row.excluded_runs or 0,
                "last_run_at": row.last_run_at,
                "headline": {
                    "requests_per_sec": row.rps,
                    "latency_p99_ms": row.p99,
                    "latency_p50_ms": row.p50,
                    "errors": int(row.errors or 0),
                },
                "decision": None if row.decision_id is None else {
                    "id": row.decision_id, "status": row.decision_status, "component": row.decision_component,
                    "knob": row.decision_knob, "before": row.decision_before, "after": row.decision_after,
                    "updated_at": row.decision_updated_at.isoformat(),
                },
            }
        )
    all_tags = session.scalars(
        select(func.unnest(Experiment.tags)).where(Experiment.project_id == project.id).distinct()
    ).all()
    return {"items": items, "total": total, "page": page, "page_size": page_size, "tags": sorted(all_tags)}
