// Members of a project and the caller's own role in it (which decides what the UI offers).
import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { api, type Schemas, unwrap } from "@/api/client";
import { projectMembersQueryOptions } from "@/lib/project-role";

export type Member = Schemas["MemberRead"];
export type MemberRole = Schemas["MemberRead"]["role"];
export type MyRole = Schemas["MembersReply"]["my_role"];
export const ROLES: readonly { role: MemberRole; help: string }[] = [
  { role: "owner", help: "members, tokens, settings, delete" },
  { role: "member", help: "create experiments, import runs, notes, decisions" },
  { role: "viewer", help: "read only" },
];

const memberKeys = {
  list: (slug: string) => projectMembersQueryOptions(slug).queryKey,
};

export const membersQueryOptions = projectMembersQueryOptions;

/** The project's public links: removing a member offers to revoke the ones they created. */
export function memberShareLinksQueryOptions(slug: string) {
  return queryOptions({
    queryKey: ["members", slug, "share-links"] as const,
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/projects/{slug}/share-links", { params: { path: { slug } }, signal })),
  });
}

export function useAddMember(slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas["MemberAdd"]) =>
      unwrap(api.POST("/api/projects/{slug}/members", { params: { path: { slug } }, body })),
    onSuccess: () => qc.invalidateQueries({ queryKey: memberKeys.list(slug) }),
  });
}

export function useUpdateMember(slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ userId, role }: { userId: number; role: MemberRole }) =>
      unwrap(
        api.PATCH("/api/projects/{slug}/members/{user_id}", {
          params: { path: { slug, user_id: userId } },
          body: { role },
        }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: memberKeys.list(slug) }),
  });
}

/** revokeShareLinks: also revoke every active public link the member created in this project. */
export function useRemoveMember(slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ userId, revokeShareLinks }: { userId: number; revokeShareLinks: boolean }) =>
      unwrap(
        api.DELETE("/api/projects/{slug}/members/{user_id}", {
          params: { path: { slug, user_id: userId }, query: { revoke_share_links: revokeShareLinks } },
        }),
      ),
    onSuccess: () => {
      qc.invalidateQueries({ queryKey: memberKeys.list(slug) });
      // The project's share-link list shows the revoked ones.
      qc.invalidateQueries({ predicate: (q) => q.queryKey.includes("share-links") });
    },
  });
}
