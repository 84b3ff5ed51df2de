// Delete (to the project's trash, restorable for 30 days), restore, exclude from statistics.
import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { api, type Schemas, unwrap } from "@/api/client";

export type TrashItem = Schemas["TrashItem"];
export type TrashKind = TrashItem["kind"];

export const trashKeys = { list: (slug: string) => ["trash", slug] as const };

export function trashQueryOptions(slug: string) {
  return queryOptions({
    queryKey: trashKeys.list(slug),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/projects/{slug}/trash", { params: { path: { slug } }, signal })),
  });
}

function call(kind: TrashKind, id: string, action: "delete" | "restore"): Promise<TrashItem> {
  if (kind === "run") {
    const params = { path: { run_id: id } };
    return unwrap(
      action === "delete"
        ? api.DELETE("/api/runs/{run_id}", { params })
        : api.POST("/api/runs/{run_id}/restore", { params }),
    );
  }
  if (kind === "experiment") {
    const params = { path: { experiment_id: Number(id) } };
    return unwrap(
      action === "delete"
        ? api.DELETE("/api/experiments/{experiment_id}", { params })
        : api.POST("/api/experiments/{experiment_id}/restore", { params }),
    );
  }
  const params = { path: { profile_id: id } };
  return unwrap(
    action === "delete"
      ? api.DELETE("/api/profiles/{profile_id}", { params })
      : api.POST("/api/profiles/{profile_id}/restore", { params }),
  );
}

/** Everything a delete or restore can change: lists, history, compare, trends, the trash. */
function useInvalidateAll() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries();
}

export function deleteToTrash(kind: TrashKind, id: string): Promise<TrashItem> {
  return call(kind, id, "delete");
}

export function useRestore() {
  const invalidate = useInvalidateAll();
  return useMutation({
    mutationFn: ({ kind, id }: { kind: TrashKind; id: string }) => call(kind, id, "restore"),
    onSuccess: invalidate,
  });
}

export function restore(kind: TrashKind, id: string): Promise<TrashItem> {
  return call(kind, id, "restore");
}

export function useExcludeRun(runId: string) {
  const invalidate = useInvalidateAll();
  return useMutation({
    mutationFn: (body: { excluded: boolean; excluded_reason?: string }) =>
      unwrap(api.PATCH("/api/runs/{run_id}", { params: { path: { run_id: runId } }, body })),
    onSuccess: invalidate,
  });
}
