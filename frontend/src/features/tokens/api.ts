// Agent tokens of a project: listed by hint, created (the secret is returned once), revoked.
import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { api, type Schemas, unwrap } from "@/api/client";

export type Token = Schemas["TokenRead"];
export type TokenCreated = Schemas["TokenCreated"];
export type Scope = NonNullable<Schemas["TokenCreate"]["scopes"]>[number];
export const SCOPES: readonly { scope: Scope; help: string }[] = [
  { scope: "ingest", help: "send runs, lines and files (agents)" },
  { scope: "read", help: "read results (CLI compare, CI scripts)" },
];

const tokenKeys = {
  list: (slug: string) => ["tokens", slug] as const,
};

export function tokensQueryOptions(slug: string) {
  return queryOptions({
    queryKey: tokenKeys.list(slug),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/projects/{slug}/tokens", { params: { path: { slug } }, signal })),
  });
}

export function useCreateToken(slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas["TokenCreate"]) =>
      unwrap(api.POST("/api/projects/{slug}/tokens", { params: { path: { slug } }, body })),
    // Only the list is refreshed: the secret itself stays in the mutation result, never in the cache.
    onSuccess: () => qc.invalidateQueries({ queryKey: tokenKeys.list(slug) }),
  });
}

export function useRevokeToken(slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) =>
      unwrap(api.DELETE("/api/tokens/{token_id}", { params: { path: { token_id: id } } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: tokenKeys.list(slug) }),
  });
}
