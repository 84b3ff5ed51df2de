// Projects: one per investigation.
import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { api, type Schemas, unwrap } from "@/api/client";

export type ProjectListItem = Schemas["ProjectListItem"];
export type Project = Schemas["ProjectRead"];

export const projectKeys = {
  all: ["projects"] as const,
  list: () => [...projectKeys.all, "list"] as const,
  detail: (slug: string) => [...projectKeys.all, "detail", slug] as const,
};

export function projectsQueryOptions() {
  return queryOptions({
    queryKey: projectKeys.list(),
    queryFn: ({ signal }) => unwrap(api.GET("/api/projects", { signal })),
  });
}

export function projectQueryOptions(slug: string) {
  return queryOptions({
    queryKey: projectKeys.detail(slug),
    queryFn: ({ signal }) => unwrap(api.GET("/api/projects/{slug}", { params: { path: { slug } }, signal })),
    staleTime: 60_000,
  });
}

export function useCreateProject() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas["ProjectCreate"]) => unwrap(api.POST("/api/projects", { body })),
    onSuccess: (project) => {
      qc.setQueryData(projectKeys.detail(project.slug), project);
      return qc.invalidateQueries({ queryKey: projectKeys.list() });
    },
  });
}
