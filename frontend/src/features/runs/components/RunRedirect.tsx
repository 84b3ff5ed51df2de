// /runs/:runId is the short link the agent prints; it forwards to the run inside its project.
import { useQuery } from "@tanstack/react-query";
import { Navigate, useParams } from "react-router";
import { ErrorBox } from "@/components/ErrorBox";
import { SkeletonBlock } from "@/components/Skeleton";
import { runQueryOptions } from "../api";

export function RunRedirect() {
  const { runId = "" } = useParams();
  const run = useQuery(runQueryOptions(runId));
  if (run.data) return <Navigate to={`/p/${run.data.project_slug}/runs/${run.data.id}`} replace />;
  return (
    <main className="page">{run.error ? <ErrorBox error={run.error} /> : <SkeletonBlock lines={3} />}</main>
  );
}
