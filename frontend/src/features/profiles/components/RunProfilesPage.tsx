// /p/:slug/runs/:runId/profiles: a run's flame graphs and where to upload more.
import { Link, useParams } from "react-router";
import { useTitle } from "@/lib/use-title";
import { RunProfiles } from "./RunProfiles";

export function RunProfilesPage() {
  const { slug = "", runId = "" } = useParams();
  useTitle(`Flame graphs of run ${runId.slice(0, 8)}`, slug);
  return (
    <main className="page">
      <nav aria-label="Breadcrumb" className="muted">
        <Link to={`/p/${slug}`}>Experiments</Link> <span className="crumb-sep">/</span>{" "}
        <Link to={`/p/${slug}/runs/${runId}`}>Run {runId.slice(0, 8)}</Link>{" "}
        <span className="crumb-sep">/</span> Profiles
      </nav>
      <RunProfiles slug={slug} runId={runId} />
    </main>
  );
}
