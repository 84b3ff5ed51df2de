// One run with its hosts, streams and parsed summaries; its series (the list, and the samples of the
// few a chart shows, downsampled by the server); the project's hosts (for what they cannot collect).
import { keepPreviousData, queryOptions } from "@tanstack/react-query";
import { api, type Schemas, unwrap } from "@/api/client";

export type RunDetail = Schemas["RunDetail"];
export type StreamRead = Schemas["StreamRead"];
export type SummaryRead = Schemas["SummaryRead"];
export type SeriesData = Schemas["SeriesData"];
export type ProjectHost = Schemas["HostRead"];

/** The server averages longer series into at most this many points, so a chart never gets more. */
export const MAX_POINTS = 2000;

export const runKeys = {
  detail: (id: string) => ["runs", "detail", id] as const,
  /** Prefix of everything series-related of a run: invalidated together when the run changes. */
  series: (id: string) => ["runs", "series", id] as const,
  seriesList: (id: string) => ["runs", "series", id, "list"] as const,
  seriesData: (id: string, ids: readonly number[]) =>
    ["runs", "series", id, "data", ids.join(","), MAX_POINTS] as const,
  hosts: (slug: string) => ["runs", "hosts", slug] as const,
  attachments: (id: string) => ["runs", "attachments", id] as const,
  tail: (id: string, streamId: number, received: number) => ["runs", "tail", id, streamId, received] as const,
};

export const TAIL_LINES = 20;

/** The newest raw lines of a stream; keyed by how many lines arrived, so each new batch refetches it. */
export function streamTailQueryOptions(id: string, streamId: number, received: number) {
  return queryOptions({
    queryKey: runKeys.tail(id, streamId, received),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/runs/{run_id}/streams/{stream_id}/tail", {
          params: { path: { run_id: id, stream_id: streamId }, query: { lines: TAIL_LINES } },
          signal,
        }),
      ),
    enabled: received > 0,
    placeholderData: keepPreviousData,
  });
}

export function isLive(status: string): boolean {
  return status === "running" || status === "pending";
}

/** A live run is refreshed by server-sent events (useRunEvents); `poll` is the fallback without them. */
export function runQueryOptions(id: string, poll = false) {
  return queryOptions({
    queryKey: runKeys.detail(id),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/runs/{run_id}", { params: { path: { run_id: id } }, signal })),
    refetchInterval: (q) => (poll && q.state.data && isLive(q.state.data.status) ? 2_000 : false),
  });
}

export function seriesListQueryOptions(id: string, poll = false) {
  return queryOptions({
    queryKey: runKeys.seriesList(id),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/runs/{run_id}/series", { params: { path: { run_id: id } }, signal })),
    refetchInterval: poll ? 2_000 : false,
    placeholderData: keepPreviousData,
  });
}

/** Samples of the series one chart shows (never all series of a run: it may have hundreds). */
export function seriesDataQueryOptions(id: string, ids: readonly number[], poll = false) {
  const sorted = [...ids].sort((a, b) => a - b);
  return queryOptions({
    queryKey: runKeys.seriesData(id, sorted),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/runs/{run_id}/series/data", {
          params: { path: { run_id: id }, query: { ids: sorted, max_points: MAX_POINTS } },
          signal,
        }),
      ),
    enabled: sorted.length > 0,
    // A live chart keeps its lines while the next samples load, instead of flashing a skeleton.
    placeholderData: keepPreviousData,
    refetchInterval: poll ? 2_000 : false,
    staleTime: 5_000,
  });
}

/** The project's hosts: their capabilities say which collectors they could not run (netqtop without bcc). */
export function projectHostsQueryOptions(slug: string) {
  return queryOptions({
    queryKey: runKeys.hosts(slug),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/projects/{slug}/hosts", { params: { path: { slug } }, signal })),
    staleTime: 60_000,
  });
}

export interface Capability {
  collector: string;
  available: boolean;
  reason: string;
}

/** Collectors a host reported it cannot run, e.g. {collector: "netqtop:eth0", reason: "bcc is not installed"}. */
export function unavailableCollectors(host: Pick<ProjectHost, "capabilities">, kind: string): Capability[] {
  const out: Capability[] = [];
  for (const [name, raw] of Object.entries(host.capabilities ?? {})) {
    if (name !== kind && !name.startsWith(`${kind}:`)) continue;
    const v = raw && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
    if (v.available === false) {
      out.push({ collector: name, available: false, reason: typeof v.reason === "string" ? v.reason : "" });
    }
  }
  return out;
}

/** What an import kept without reading it (a file no parser knows), with the reason and a download link. */
export function runAttachmentsQueryOptions(id: string) {
  return queryOptions({
    queryKey: runKeys.attachments(id),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/runs/{run_id}/attachments", { params: { path: { run_id: id } }, signal })),
  });
}
