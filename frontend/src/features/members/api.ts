// Members of a project and the caller's own role in it (which decides what the UI offers).
import { useMutation, useQueryClient } from "@tanstack/react-query";
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

export function useRemoveMember(slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (userId: number) =>
      unwrap(
        api.DELETE("/api/projects/{slug}/members/{user_id}", {
          params: { path: { slug, user_id: userId } },
        }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: memberKeys.list(slug) }),
  });
}
