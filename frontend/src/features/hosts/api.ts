// Machines running an agent in a project, with the facts and capabilities they reported.
import { queryOptions } from "@tanstack/react-query";
import { api, type Schemas, unwrap } from "@/api/client";

export type Host = Schemas["HostRead"];

export function hostsQueryOptions(slug: string) {
  return queryOptions({
    queryKey: ["hosts", slug] as const,
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/projects/{slug}/hosts", { params: { path: { slug } }, signal })),
    // Online/offline is derived from heartbeats every 10 s; refresh at about that pace.
    refetchInterval: 15_000,
  });
}
