// The project's trash: what was deleted in the last 30 days, each restorable until it is purged.
import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { type TrashItem, trashQueryOptions, useRestore } from "@/api/trash";
import { EmptyState } from "@/components/EmptyState";
import { ErrorBox } from "@/components/ErrorBox";
import { SkeletonBlock } from "@/components/Skeleton";
import { TimeAgo } from "@/components/TimeAgo";
import { useProjectRole } from "@/lib/project-role";
import { useTitle } from "@/lib/use-title";

function daysLeft(purgeAt: string, now = Date.now()): string {
  const days = Math.max(0, Math.ceil((Date.parse(purgeAt) - now) / 86_400_000));
  return days === 1 ? "1 day" : `${days} days`;
}

function restoredLink(slug: string, item: TrashItem): string {
  if (item.kind === "experiment") return `/p/${slug}/experiments/${item.experiment_id}`;
  if (item.kind === "run") return `/p/${slug}/runs/${item.id}`;
  return `/p/${slug}/profiles/${item.id}`;
}

export function TrashPage() {
  const { slug = "" } = useParams();
  useTitle("Trash", slug);
  const trash = useQuery(trashQueryOptions(slug));
  const restore = useRestore();
  const { canWrite } = useProjectRole(slug);

  return (
    <main className="page">
      <div className="page-header">
        <div>
          <h1>Trash</h1>
          <div className="subtitle">
            Deleted experiments, runs and profiles stay here for 30 days, then they are removed for good.
          </div>
        </div>
      </div>
      {trash.error ? <ErrorBox error={trash.error} onRetry={() => trash.refetch()} /> : null}
      {restore.error ? <ErrorBox error={restore.error} title="Could not restore" /> : null}
      {restore.data ? (
        <div className="alert" role="status">
          Restored {restore.data.kind} <Link to={restoredLink(slug, restore.data)}>{restore.data.name}</Link>.
        </div>
      ) : null}
      <section className="card">
        {trash.isPending ? (
          <div className="card-body">
            <SkeletonBlock lines={3} />
          </div>
        ) : trash.data?.length === 0 ? (
          <EmptyState title="The trash is empty">
            <p>Deleting a run, an experiment or a profile puts it here first.</p>
          </EmptyState>
        ) : (
          <div className="table-wrap">
            <table className="table" aria-label="Trash">
              <thead>
                <tr>
                  <th scope="col">What</th>
                  <th scope="col">Experiment</th>
                  <th scope="col">Deleted</th>
                  <th scope="col">Removed for good in</th>
                  {canWrite ? <th scope="col" /> : null}
                </tr>
              </thead>
              <tbody>
                {trash.data?.map((item) => (
                  <tr key={`${item.kind}:${item.id}`}>
                    <td>
                      <span className="badge plain">{item.kind}</span> {item.name}
                    </td>
                    <td>{item.experiment_name}</td>
                    <td>
                      <TimeAgo iso={item.deleted_at} />
                    </td>
                    <td>{daysLeft(item.purge_at)}</td>
                    {canWrite ? (
                      <td>
                        <button
                          type="button"
                          className="btn btn-sm"
                          disabled={restore.isPending}
                          onClick={() => restore.mutate({ kind: item.kind, id: item.id })}
                        >
                          Restore
                        </button>
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </main>
  );
}
