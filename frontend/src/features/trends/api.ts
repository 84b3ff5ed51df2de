// A metric's history across the project's experiments, and the metrics there are.
import { keepPreviousData, queryOptions } from "@tanstack/react-query";
import { api, type Schemas, unwrap } from "@/api/client";

export type TrendMetric = Schemas["TrendMetric"];
export type Trend = Schemas["TrendReply"];
export type TrendExperiment = Schemas["TrendExperiment"];

export function trendMetricsQueryOptions(slug: string) {
  return queryOptions({
    queryKey: ["trend-metrics", slug] as const,
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/projects/{slug}/trend/metrics", { params: { path: { slug } }, signal })),
    staleTime: 60_000,
  });
}

/** `alpha`: change-point sensitivity; `archived`: include archived experiments (hidden by default). */
export function trendQueryOptions(slug: string, metric: string, alpha?: number, archived = false) {
  return queryOptions({
    queryKey: ["trend", slug, metric, alpha ?? null, archived] as const,
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/projects/{slug}/trend", {
          params: {
            path: { slug },
            query: {
              metric,
              ...(alpha === undefined ? {} : { alpha }),
              include_archived: archived || undefined,
            },
          },
          signal,
        }),
      ),
    enabled: metric !== "",
    placeholderData: keepPreviousData,
  });
}
