// Notes and decisions of one experiment or run, for the pages that show them beside their data (the
// experiment and run pages; the comparison keeps its own, which ride along in its reply).
import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { api, type Schemas, unwrap } from "./client";

export type NoteRead = Schemas["NoteRead"];
export type DecisionRead = Schemas["DecisionRead"];

export interface NoteScope {
  experimentId?: number;
  runId?: string;
}

export const notesKeys = {
  all: ["notes"] as const,
  notes: (slug: string, scope: NoteScope) => [...notesKeys.all, slug, "notes", scope] as const,
  decisions: (slug: string, experimentId: number) =>
    [...notesKeys.all, slug, "decisions", experimentId] as const,
};

export function scopedNotesQueryOptions(slug: string, scope: NoteScope) {
  return queryOptions({
    queryKey: notesKeys.notes(slug, scope),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/projects/{slug}/notes", {
          params: { path: { slug }, query: { experiment_id: scope.experimentId, run_id: scope.runId } },
          signal,
        }),
      ),
  });
}

export function experimentDecisionsQueryOptions(slug: string, experimentId: number) {
  return queryOptions({
    queryKey: notesKeys.decisions(slug, experimentId),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/projects/{slug}/decisions", {
          params: { path: { slug }, query: { experiment_id: experimentId } },
          signal,
        }),
      ),
  });
}

export function useAddNote(slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas["NoteCreate"]) =>
      unwrap(api.POST("/api/projects/{slug}/notes", { params: { path: { slug } }, body })),
    onSuccess: () => qc.invalidateQueries({ queryKey: notesKeys.all }),
  });
}
