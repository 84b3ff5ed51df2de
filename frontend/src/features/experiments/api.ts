// Experiments of a project (the history view), one experiment, and its runs.
import { keepPreviousData, queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { api, type Schemas, unwrap } from "@/api/client";
import { type HistoryState, historyQuery } from "./history-state";

export type ExperimentListItem = Schemas["ExperimentListItem"];
export type Experiment = Schemas["ExperimentRead"];
export type RunListItem = Schemas["RunListItem"];

export const experimentKeys = {
  all: ["experiments"] as const,
  history: (slug: string) => [...experimentKeys.all, "history", slug] as const,
  historyPage: (slug: string, query: ReturnType<typeof historyQuery>) =>
    [...experimentKeys.history(slug), query] as const,
  detail: (id: number) => [...experimentKeys.all, "detail", id] as const,
  runs: (id: number, page: number) => [...experimentKeys.all, "runs", id, page] as const,
};

export function experimentHistoryQueryOptions(slug: string, state: HistoryState) {
  const query = historyQuery(state);
  return queryOptions({
    queryKey: experimentKeys.historyPage(slug, query),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/projects/{slug}/experiments", { params: { path: { slug }, query }, signal })),
    // Keep showing the previous page while the next one loads, so sorting does not flash a skeleton.
    placeholderData: keepPreviousData,
    // Running experiments change under us; a light poll keeps run counts and headlines current.
    refetchInterval: 15_000,
  });
}

export function experimentQueryOptions(id: number) {
  return queryOptions({
    queryKey: experimentKeys.detail(id),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/experiments/{experiment_id}", { params: { path: { experiment_id: id } }, signal }),
      ),
  });
}

export function experimentRunsQueryOptions(id: number, page: number, pageSize = 100) {
  return queryOptions({
    queryKey: experimentKeys.runs(id, page),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/experiments/{experiment_id}/runs", {
          params: { path: { experiment_id: id }, query: { page, page_size: pageSize } },
          signal,
        }),
      ),
    placeholderData: keepPreviousData,
    // Until live updates (server-sent events) land, poll faster while something is running.
    refetchInterval: (q) =>
      q.state.data?.items.some((r) => r.status === "running" || r.status === "pending") ? 3_000 : 30_000,
  });
}

export function useCreateExperiment(slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas["ExperimentCreate"]) =>
      unwrap(api.POST("/api/projects/{slug}/experiments", { params: { path: { slug } }, body })),
    onSuccess: (exp) => {
      qc.setQueryData(experimentKeys.detail(exp.id), exp);
      return qc.invalidateQueries({ queryKey: experimentKeys.history(slug) });
    },
  });
}

export function useUpdateExperiment(id: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas["ExperimentUpdate"]) =>
      unwrap(
        api.PATCH("/api/experiments/{experiment_id}", { params: { path: { experiment_id: id } }, body }),
      ),
    onSuccess: (exp) => {
      qc.setQueryData(experimentKeys.detail(id), exp);
      return qc.invalidateQueries({ queryKey: [...experimentKeys.all, "history"] });
    },
  });
}

/** Change points of requests/sec across the project (see the trends page), by experiment id -> change %. */
export function rpsChangePointsQueryOptions(slug: string) {
  return queryOptions({
    queryKey: ["trend", slug, "wrk.requests_per_sec"] as const,
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/projects/{slug}/trend", {
          params: { path: { slug }, query: { metric: "wrk.requests_per_sec" } },
          signal,
        }),
      ),
    select: (t) => new Map(t.change_points.map((c) => [c.experiment_id, c.delta_pct ?? null] as const)),
    staleTime: 30_000,
  });
}
