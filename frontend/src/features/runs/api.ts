// One run with its hosts, streams and parsed summaries.
import { queryOptions } from "@tanstack/react-query";
import { api, type Schemas, unwrap } from "@/api/client";

export type RunDetail = Schemas["RunDetail"];
export type StreamRead = Schemas["StreamRead"];
export type SummaryRead = Schemas["SummaryRead"];

export const runKeys = {
  detail: (id: string) => ["runs", "detail", id] as const,
};

export function isLive(status: string): boolean {
  return status === "running" || status === "pending";
}

export function runQueryOptions(id: string) {
  return queryOptions({
    queryKey: runKeys.detail(id),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/runs/{run_id}", { params: { path: { run_id: id } }, signal })),
    // Until server-sent events land, poll a live run every 2 s (the "at most 2 s behind" target).
    refetchInterval: (q) => (q.state.data && isLive(q.state.data.status) ? 2_000 : false),
  });
}
