// The runs of one experiment, newest first, with their headline numbers and a live badge while running.
import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { DeleteButton } from "@/components/DeleteButton";
import { EmptyState } from "@/components/EmptyState";
import { ErrorBox } from "@/components/ErrorBox";
import { ExcludeRunButton } from "@/components/ExcludeRunButton";
import { Pagination } from "@/components/Pagination";
import { SkeletonRows } from "@/components/Skeleton";
import { StatusBadge } from "@/components/StatusBadge";
import { TimeAgo } from "@/components/TimeAgo";
import { formatCompact, formatDuration, formatInt, formatMs, secondsBetween } from "@/lib/format";
import { useProjectRole } from "@/lib/project-role";
import { experimentRunsQueryOptions } from "../api";
import { headlineNumber } from "../headline";

interface Props {
  slug: string;
  experimentId: number;
  experimentName: string | undefined;
  page: number;
  onPage: (page: number) => void;
}

const PAGE_SIZE = 100;

// Imported runs carry no real start and end (both are the import time): show nothing rather than "0s".
function formatRunDuration(seconds: number | null): string {
  return seconds !== null && seconds > 0 ? formatDuration(seconds) : "—";
}

export function ExperimentRunsTable({ slug, experimentId, experimentName, page, onPage }: Props) {
  const runs = useQuery(experimentRunsQueryOptions(experimentId, page, PAGE_SIZE));
  const { canWrite } = useProjectRole(slug);

  if (runs.error)
    return (
      <div className="card-body">
        <ErrorBox error={runs.error} onRetry={() => runs.refetch()} />
      </div>
    );
  if (runs.data && runs.data.total === 0) {
    return (
      <EmptyState title="No runs yet">
        <p>
          Run the load test through the agent with{" "}
          <code>
            --project {slug} --experiment {JSON.stringify(experimentName ?? "…")}
          </code>
          , or <Link to={`/p/${slug}/import`}>import results</Link> into this experiment.
        </p>
      </EmptyState>
    );
  }

  return (
    <>
      <div className="table-wrap">
        <table className="table" aria-label="Runs">
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Status</th>
              <th scope="col">Started</th>
              <th scope="col" className="num">
                Duration
              </th>
              <th scope="col" className="num">
                RPS
              </th>
              <th scope="col" className="num">
                p50
              </th>
              <th scope="col" className="num">
                p99
              </th>
              <th scope="col" className="num">
                Errors
              </th>
              <th scope="col">Source</th>
              {canWrite ? (
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              ) : null}
            </tr>
          </thead>
          {runs.isPending ? (
            <SkeletonRows rows={3} columns={canWrite ? 10 : 9} />
          ) : (
            <tbody>
              {runs.data?.items.map((r) => {
                const errors = headlineNumber(r.headline, "errors");
                const name = r.label || r.id.slice(0, 8);
                return (
                  <tr key={r.id} className={r.excluded ? "run-excluded" : undefined}>
                    <td>
                      <Link className="run-name" to={`/p/${slug}/runs/${r.id}`}>
                        {name}
                      </Link>
                      {r.excluded ? (
                        <div className="excluded-reason">Excluded from statistics: {r.excluded_reason}</div>
                      ) : null}
                      {r.status_reasons.length ? (
                        <div className="faint" title={r.status_reasons.join("\n")}>
                          {r.status_reasons[0]}
                          {r.status_reasons.length > 1 ? ` (+${r.status_reasons.length - 1} more)` : ""}
                        </div>
                      ) : null}
                    </td>
                    <td>
                      <StatusBadge status={r.status} />
                    </td>
                    <td>
                      <TimeAgo iso={r.started_at ?? r.created_at} />
                    </td>
                    <td className="num">{formatRunDuration(secondsBetween(r.started_at, r.ended_at))}</td>
                    <td className="num">{formatCompact(headlineNumber(r.headline, "requests_per_sec"))}</td>
                    <td className="num">{formatMs(headlineNumber(r.headline, "latency_p50_ms"))}</td>
                    <td className="num">{formatMs(headlineNumber(r.headline, "latency_p99_ms"))}</td>
                    <td className={`num ${errors ? "delta-worse" : ""}`}>
                      {formatInt(errors)}
                      {errors ? <span className="sr-only"> errors</span> : null}
                    </td>
                    <td className="muted">{r.source}</td>
                    {canWrite ? (
                      <td className="row-actions">
                        <ExcludeRunButton runId={r.id} excluded={r.excluded ?? false} name={`run ${name}`} />{" "}
                        <DeleteButton kind="run" id={r.id} name={`run ${name}`} />
                      </td>
                    ) : null}
                  </tr>
                );
              })}
            </tbody>
          )}
        </table>
      </div>
      {runs.data && runs.data.total > PAGE_SIZE ? (
        <Pagination
          page={runs.data.page}
          pageSize={runs.data.page_size}
          total={runs.data.total}
          onPage={onPage}
        />
      ) : null}
    </>
  );
}
