// What the server's findings rules read in a run: the bottleneck, its evidence and the knob to turn.
import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { api, type Schemas, unwrap } from "@/api/client";

export type Finding = Schemas["FindingRead"];
export type EvidenceItem = Schemas["EvidenceRead"];
export type ExperimentFindings = Schemas["ExperimentFindings"];
export type UseCheck = Schemas["UseCheck"];

export const findingsKeys = {
  run: (id: string) => ["findings", "run", id] as const,
  use: (id: string) => ["findings", "use", id] as const,
};

export function runFindingsQueryOptions(runId: string, refetch = false) {
  return queryOptions({
    queryKey: findingsKeys.run(runId),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/runs/{run_id}/findings", { params: { path: { run_id: runId } }, signal })),
    // A live run gains summaries as streams close: look again until it is done.
    refetchInterval: refetch ? 5000 : false,
  });
}

/** The USE checklist of a run: per resource, utilisation, saturation and errors. */
export function runUseQueryOptions(runId: string, refetch = false) {
  return queryOptions({
    queryKey: findingsKeys.use(runId),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/runs/{run_id}/use", { params: { path: { run_id: runId } }, signal })),
    refetchInterval: refetch ? 5000 : false,
  });
}

export function useRecordDecision(slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas["DecisionCreate"]) =>
      unwrap(api.POST("/api/projects/{slug}/decisions", { params: { path: { slug } }, body })),
    onSuccess: () => qc.invalidateQueries({ queryKey: ["experiments"] }),
  });
}
