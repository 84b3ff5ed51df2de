// One experiment: what was tried and why (editable), and its runs.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useNavigate, useParams, useSearchParams } from "react-router";
import { DeleteButton } from "@/components/DeleteButton";
import { ErrorBox } from "@/components/ErrorBox";
import { MarkdownText } from "@/components/MarkdownText";
import { SkeletonBlock } from "@/components/Skeleton";
import { StatusBadge } from "@/components/StatusBadge";
import { TimeAgo } from "@/components/TimeAgo";
import { ApiError } from "@/lib/api-error";
import { useProjectRole } from "@/lib/project-role";
import { patchParams, readInt } from "@/lib/url-state";
import { readDraft } from "@/lib/use-draft";
import { useTitle } from "@/lib/use-title";
import { type Experiment, experimentQueryOptions, useUpdateExperiment } from "../api";
import { EXPERIMENT_STATUSES, type ExperimentStatus } from "../history-state";
import { EditExperimentForm } from "./EditExperimentForm";
import { ExperimentNoise } from "./ExperimentNoise";
import { ExperimentNotes } from "./ExperimentNotes";
import { ExperimentRunsTable } from "./ExperimentRunsTable";

export function ExperimentPage() {
  const { slug = "", experimentId = "" } = useParams();
  const id = Number.parseInt(experimentId, 10);
  const valid = Number.isSafeInteger(id) && id > 0;
  const experiment = useQuery({ ...experimentQueryOptions(id), enabled: valid });
  useTitle(experiment.data?.name ?? (valid ? undefined : "Not found"), slug);
  const [params, setParams] = useSearchParams();
  const runsPage = readInt(params, "runs_page", 1);
  // A hypothesis left half-written (reload, expired session) reopens the form with the draft in it.
  const [editing, setEditing] = useState(() => readDraft(`hypothesis:${id}`) !== null);

  if (!valid)
    return (
      <main className="page">
        <ErrorBox error={new ApiError(404, "not_found", `no experiment ${experimentId}`)} />
      </main>
    );

  return (
    <main className="page">
      <nav aria-label="Breadcrumb" className="muted">
        <Link to={`/p/${slug}`}>Experiments</Link> <span className="crumb-sep">/</span>{" "}
        {experiment.data?.name ?? "…"}
      </nav>
      {experiment.error ? <ErrorBox error={experiment.error} onRetry={() => experiment.refetch()} /> : null}
      {experiment.isPending ? (
        <section className="card card-body">
          <SkeletonBlock lines={4} />
        </section>
      ) : null}
      {experiment.data ? (
        editing ? (
          <section className="card" aria-label="Edit experiment">
            <div className="card-header">
              <h2>Edit experiment</h2>
            </div>
            <div className="card-body">
              <EditExperimentForm experiment={experiment.data} onDone={() => setEditing(false)} />
            </div>
          </section>
        ) : (
          <ExperimentHeader experiment={experiment.data} slug={slug} onEdit={() => setEditing(true)} />
        )
      ) : null}

      <section className="card" aria-labelledby="runs-title">
        <div className="card-header">
          <h2 id="runs-title">Runs</h2>
          <span className="muted" style={{ fontSize: 12.5 }}>
            Repeat a run to see the noise: the same configuration can differ by 30% between runs.
          </span>
        </div>
        <ExperimentRunsTable
          slug={slug}
          experimentId={id}
          experimentName={experiment.data?.name}
          page={runsPage}
          onPage={(p) => setParams((prev) => patchParams(prev, { runs_page: p }, { runs_page: 1 }))}
        />
      </section>
      {experiment.data ? <ExperimentNoise slug={slug} experimentId={id} /> : null}
      {experiment.data ? <ExperimentNotes slug={slug} experimentId={id} /> : null}
    </main>
  );
}

function ExperimentHeader({
  experiment,
  slug,
  onEdit,
}: {
  experiment: Experiment;
  slug: string;
  onEdit: () => void;
}) {
  const update = useUpdateExperiment(experiment.id);
  const { canWrite } = useProjectRole(slug);
  const navigate = useNavigate();
  return (
    <section className="card">
      <div className="card-body form">
        <div className="page-header">
          <div>
            <h1>{experiment.name}</h1>
            <div className="subtitle">
              Created <TimeAgo iso={experiment.created_at} /> · updated{" "}
              <TimeAgo iso={experiment.updated_at} />
            </div>
          </div>
          <div className="actions">
            <label className="field-label" htmlFor="exp-status">
              Status
            </label>
            <select
              id="exp-status"
              className="select"
              value={experiment.status}
              disabled={update.isPending || !canWrite}
              onChange={(e) => update.mutate({ status: e.target.value as ExperimentStatus })}
            >
              {EXPERIMENT_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
            <StatusBadge status={experiment.status} />
            {canWrite ? (
              <>
                <button type="button" className="btn" onClick={onEdit}>
                  Edit
                </button>
                <DeleteButton
                  kind="experiment"
                  id={String(experiment.id)}
                  name={`experiment ${experiment.name}`}
                  className="btn btn-danger"
                  onDeleted={() => navigate(`/p/${slug}`)}
                />
              </>
            ) : null}
          </div>
        </div>
        {update.error ? <ErrorBox error={update.error} title="Could not change the status" /> : null}
        <dl className="props">
          <dt>Hypothesis</dt>
          <dd>
            {experiment.hypothesis ? (
              <MarkdownText source={experiment.hypothesis} />
            ) : (
              <span className="faint">None written down yet.{canWrite ? " Edit to add one." : ""}</span>
            )}
          </dd>
          <dt>Tags</dt>
          <dd>
            {experiment.tags.length ? (
              experiment.tags.map((t) => (
                <Link key={t} className="tag" to={`/p/${slug}?tag=${encodeURIComponent(t)}`}>
                  {t}
                </Link>
              ))
            ) : (
              <span className="faint">none</span>
            )}
          </dd>
        </dl>
      </div>
    </section>
  );
}
