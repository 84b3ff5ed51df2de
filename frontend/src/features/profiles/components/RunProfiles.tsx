// The profiles of one run, with links to the viewer and an upload drop zone. Exported for the run page
// (which composes it through the app layer) and used by the run's profiles page.
import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { DeleteButton } from "@/components/DeleteButton";
import { ErrorBox } from "@/components/ErrorBox";
import { formatInt } from "@/lib/format";
import { useProjectRole } from "@/lib/project-role";
import { runProfilesQueryOptions } from "../api";
import { formatValue } from "../format";
import { ProfileUpload } from "./ProfileUpload";

export function RunProfiles({ slug, runId }: { slug: string; runId: string }) {
  const list = useQuery(runProfilesQueryOptions(runId));
  // Viewers are offered no upload and no delete: the server would refuse both.
  const { canWrite } = useProjectRole(slug);
  return (
    <section className="card" aria-labelledby="run-profiles-title">
      <div className="card-header">
        <h2 id="run-profiles-title">Flame graphs</h2>
        <span className="faint">
          {list.data ? `${list.data.length} profile${list.data.length === 1 ? "" : "s"}` : ""}
        </span>
      </div>
      {list.error ? <ErrorBox error={list.error} title="Could not list the profiles" /> : null}
      {list.data?.length ? (
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Profile</th>
                <th scope="col">Role</th>
                <th scope="col">Format</th>
                <th scope="col" className="num">
                  Total
                </th>
                <th scope="col" className="num">
                  Frames
                </th>
                {canWrite ? (
                  <th scope="col">
                    <span className="sr-only">Actions</span>
                  </th>
                ) : null}
              </tr>
            </thead>
            <tbody>
              {list.data.map((p) => (
                <tr key={p.profile_id}>
                  <td>
                    <Link to={`/p/${slug}/profiles/${p.profile_id}`}>{p.name}</Link>
                    {p.lossy ? <span className="badge badge-warn plain"> approximate</span> : null}
                    {p.warnings.some((w) => w.includes("sampling periods")) ? (
                      <span
                        className="badge badge-warn plain"
                        data-testid="unit-flag"
                        title={`Counted as ${p.unit}, but the counts look like perf's nanosecond periods: open the profile to correct its unit`}
                      >
                        {" "}
                        unit?
                      </span>
                    ) : null}
                  </td>
                  <td>{p.role ? <span className="tag">{p.role}</span> : <span className="faint">—</span>}</td>
                  <td>{p.format}</td>
                  <td className="num">{formatValue(p.total, p.unit)}</td>
                  <td className="num">{formatInt(p.frames)}</td>
                  {canWrite ? (
                    <td>
                      <DeleteButton kind="profile" id={p.profile_id} name={`profile ${p.name}`} />
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {canWrite ? (
        <div className="card-body">
          <ProfileUpload slug={slug} runId={runId} />
        </div>
      ) : null}
    </section>
  );
}
