// All projects, newest activity first, and the form to start a new one.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { EmptyState } from "@/components/EmptyState";
import { ErrorBox } from "@/components/ErrorBox";
import { MarkdownText } from "@/components/MarkdownText";
import { SkeletonRows } from "@/components/Skeleton";
import { TimeAgo } from "@/components/TimeAgo";
import { formatInt } from "@/lib/format";
import { useTitle } from "@/lib/use-title";
import { projectsQueryOptions } from "../api";
import { CreateProjectForm } from "./CreateProjectForm";

export function ProjectsPage() {
  const projects = useQuery(projectsQueryOptions());
  useTitle("Projects");
  const navigate = useNavigate();
  const [creating, setCreating] = useState(false);
  const empty = projects.data?.length === 0;
  const showForm = creating || empty;

  return (
    <main className="page">
      <div className="page-header">
        <div>
          <h1>Projects</h1>
          <div className="subtitle">One project per investigation or system under study.</div>
        </div>
        {!showForm ? (
          <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
            New project
          </button>
        ) : null}
      </div>

      {showForm ? (
        <section className="card" aria-labelledby="new-project">
          <div className="card-header">
            <h2 id="new-project">New project</h2>
          </div>
          <div className="card-body">
            <CreateProjectForm
              onCreated={(p) => navigate(`/p/${p.slug}`)}
              onCancel={empty ? undefined : () => setCreating(false)}
            />
          </div>
        </section>
      ) : null}

      {projects.error ? <ErrorBox error={projects.error} onRetry={() => projects.refetch()} /> : null}

      {empty ? (
        <section className="card">
          <EmptyState title="No projects yet — create one to start recording experiments">
            <p>
              A project holds the experiments of one investigation, e.g. "nginx proxy throughput". Name it
              above, then create an agent token for it and start an agent on each machine, or import results
              you already have.
            </p>
          </EmptyState>
        </section>
      ) : (
        <section className="card">
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Slug</th>
                  <th scope="col" className="num">
                    Experiments
                  </th>
                  <th scope="col" className="num">
                    Runs
                  </th>
                  <th scope="col">Last run</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              {projects.isPending ? (
                <SkeletonRows rows={4} columns={6} />
              ) : (
                <tbody>
                  {projects.data?.map((p) => (
                    <tr key={p.id}>
                      <td>
                        <Link to={`/p/${p.slug}`}>{p.name}</Link>
                        {p.description ? <MarkdownText source={p.description} excerpt /> : null}
                      </td>
                      <td className="mono muted">{p.slug}</td>
                      <td className="num">{formatInt(p.experiment_count)}</td>
                      <td className="num">{formatInt(p.run_count)}</td>
                      <td>
                        <TimeAgo iso={p.last_run_at} empty="never" />
                      </td>
                      <td>
                        <TimeAgo iso={p.created_at} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              )}
            </table>
          </div>
        </section>
      )}
    </main>
  );
}
