// The caller's role in a project, which decides what the UI offers (owners manage, members write,
// viewers read). Shared by the project frame and every feature that hides what a role cannot do;
// the server enforces the same rules, this only avoids offering buttons that would be refused.
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api, unwrap } from "@/api/client";

export function projectMembersQueryOptions(slug: string) {
  return queryOptions({
    queryKey: ["members", slug] as const,
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/projects/{slug}/members", { params: { path: { slug } }, signal })),
    staleTime: 60_000,
    enabled: slug !== "",
  });
}

/** While the role is unknown, nothing that writes is offered. */
export function useProjectRole(slug: string) {
  const members = useQuery(projectMembersQueryOptions(slug));
  const role = members.data?.my_role ?? null;
  return {
    role,
    canWrite: role === "admin" || role === "owner" || role === "member",
    canManage: role === "admin" || role === "owner",
  };
}
