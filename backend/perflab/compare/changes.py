"""What changed between the baseline and each experiment: config and sysctl snapshots, host facts, knob changes."""

from __future__ import annotations

import logging
import uuid
from collections import defaultdict
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from perflab.artifacts import service as artifacts_service
from perflab.artifacts.models import Artifact
from perflab.compare import configs
from perflab.compare.schemas import ChangeSet, FileDiff, KnobChange
from perflab.compare.selection import Selection, select_experiments
from perflab.experiments.models import Experiment
from perflab.hosts.models import Host
from perflab.projects.models import Project
from perflab.runs.models import Run, RunHost

log = logging.getLogger(__name__)



def _reference_runs(session: Session, sel: Selection) -> tuple[dict[int, Run | None], dict[uuid.UUID, list[Artifact]]]:
    """Per experiment, the first run that carries config snapshots (else its first run)."""
    arts: dict[uuid.UUID, list[Artifact]] = defaultdict(list)
    if sel.run_ids:
        query = select(Artifact).where(Artifact.run_id.in_(sel.run_ids), Artifact.kind.in_(("config", "sysctl")))
        if sel.frozen_at is not None:
            query = query.where(Artifact.created_at <= sel.frozen_at)
        for a in session.scalars(query.order_by(Artifact.id)):
            assert a.run_id is not None
            arts[a.run_id].append(a)
    ref: dict[int, Run | None] = {}
    for e in sel.experiments:
        runs = sel.runs.get(e.id, [])
        ref[e.id] = next((r for r in runs if arts.get(r.id)), runs[0] if runs else None)
    return ref, arts


def what_changed(session: Session, sel: Selection) -> list[ChangeSet]:
    ref, arts = _reference_runs(session, sel)
    facts: dict[uuid.UUID, dict[str, dict[str, Any]]] = defaultdict(dict)
    ref_ids = [r.id for r in ref.values() if r is not None]
    if ref_ids:
        for run_id, role, host in session.execute(
            select(RunHost.run_id, RunHost.role, Host).join(Host, Host.id == RunHost.host_id)
            .where(RunHost.run_id.in_(ref_ids)).order_by(Host.hostname)
        ).all():
            facts[run_id].setdefault(role, host.facts or {})

    texts: dict[int, str | None] = {}

    def files_of(run: Run | None) -> dict[tuple[str, str, str], Artifact]:
        if run is None:
            return {}
        # The last snapshot of a name wins (a re-upload corrects the first).
        return {(a.kind, a.role, a.name): a for a in arts.get(run.id, [])}

    def aligned(base_files: dict[tuple[str, str, str], Artifact], files: dict[tuple[str, str, str], Artifact]
                ) -> dict[tuple[str, str, str], Artifact]:
        """`files` keyed by the baseline's name of the same file (configs.match_names): an agent's
        /etc/nginx/nginx.conf and an import's nginx.conf are one file, diffed."""
        out: dict[tuple[str, str, str], Artifact] = {}
        for kind, role in {(k, r) for k, r, _ in files}:
            mine = [n for k, r, n in files if (k, r) == (kind, role)]
            theirs = [n for k, r, n in base_files if (k, r) == (kind, role)]
            for name, as_name in configs.match_names(theirs, mine).items():
                out[(kind, role, as_name)] = files[(kind, role, name)]
        return out

    def content(a: Artifact | None) -> str | None:
        if a is None:
            return None
        if a.id not in texts:
            texts[a.id] = artifacts_service.read_snapshot_text(a)
        return texts[a.id]

    base = sel.baseline
    base_run = ref[base.id]
    base_files = files_of(base_run)
    base_facts = facts.get(base_run.id, {}) if base_run else {}
    out: list[ChangeSet] = []
    for e in sel.experiments[1:]:
        run = ref[e.id]
        files = aligned(base_files, files_of(run))
        diffs: list[FileDiff] = []
        knobs: list[KnobChange] = []
        for key in sorted(set(base_files) | set(files)):
            kind, role, _ = key
            a, b = base_files.get(key), files.get(key)
            shown = b if b is not None else a
            assert shown is not None
            name = shown.name  # the experiment's own path when it has one
            ta, tb = content(a), content(b)
            if (a is not None and ta is None) or (b is not None and tb is None):
                diffs.append(FileDiff(kind=kind, name=name, role=role, status="binary",  # type: ignore[arg-type]
                                      diff="(binary, larger than 1 MiB or unreadable: not diffed)"))
                continue
            status = "added" if a is None else "removed" if b is None else ("same" if ta == tb else "changed")
            diff, cut = configs.unified_diff(ta or "", tb or "", from_name=f"{base.name}/{name}",
                                             to_name=f"{e.name}/{name}")
            diffs.append(FileDiff(kind=kind, name=name, role=role, status=status, diff=diff,  # type: ignore[arg-type]
                                  truncated=cut))
            # The forms stored with the snapshots: a comparison (or a share view) reads them, never parses.
            forms = (artifacts_service.snapshot_form(a, ta) if a is not None and ta is not None else None,
                     artifacts_service.snapshot_form(b, tb) if b is not None and tb is not None else None)
            for k in configs.knob_changes(ta, tb, file=name, kind=kind, forms=forms):
                knobs.append(KnobChange(component=k.component, knob=k.knob, context=k.context, before=k.before,
                                        after=k.after, file=k.file))
        run_facts = facts.get(run.id, {}) if run else {}
        for role in sorted(set(base_facts) | set(run_facts)):
            fa, fb = base_facts.get(role), run_facts.get(role)
            ta, tb = configs.facts_text(fa or {}), configs.facts_text(fb or {})
            status = "added" if fa is None else "removed" if fb is None else ("same" if ta == tb else "changed")
            diff, cut = configs.unified_diff(ta, tb, from_name=f"{base.name}/{role}", to_name=f"{e.name}/{role}")
            diffs.append(FileDiff(kind="host_facts", name=f"{role} host facts", role=role,
                                  status=status, diff=diff, truncated=cut))  # type: ignore[arg-type]
        out.append(ChangeSet(experiment=e.name, baseline=base.name, run_id=str(run.id) if run else None,
                             baseline_run_id=str(base_run.id) if base_run else None, files=diffs, knob_changes=knobs))
    return out


def knob_changes_between(session: Session, *, project: Project, baseline: Experiment,
                         experiment: Experiment) -> list[configs.Knob]:
    """The knob changes from the baseline's config snapshots to the experiment's (decision pre-fill)."""
    sel = select_experiments(session, project=project, baseline=str(baseline.name), experiments=[experiment.name])
    if len(sel.experiments) < 2:
        return []
    return [configs.Knob(k.component, k.knob, k.context, k.before, k.after, k.file)
            for cs in what_changed(session, sel) for k in cs.knob_changes]
