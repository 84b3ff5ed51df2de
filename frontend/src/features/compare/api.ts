// Server state of the compare feature: live comparisons, saved snapshots (/c/:shortId), public share
// views (/s/:token), their overlays, and the notes, decisions and share links written from the page.
import { keepPreviousData, queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { api, type Schemas, unwrap } from "@/api/client";
import { takeEarly } from "@/lib/early-fetch";

export type CompareReply = Schemas["CompareReply"];
export type Cell = Schemas["Cell"];
export type SetupNoise = Schemas["SetupNoise"];
export type ResultRow = Schemas["ResultRow"];
export type TelemetryRow = Schemas["TelemetryRow"];
export type SyscallTable = Schemas["SyscallTable"];
export type ChangeSet = Schemas["ChangeSet"];
export type Mover = Schemas["Mover"];
export type NoteRef = Schemas["NoteRef"];
export type NoteRead = Schemas["NoteRead"];
export type OverlayReply = Schemas["OverlayReply"];
export type OverlayMetric = Schemas["OverlayMetric"];
export type ViewState = Schemas["ViewState"];
export type ComparisonRead = Schemas["ComparisonRead"];
export type ShareLinkRead = Schemas["ShareLinkRead"];
export type ShareLinkCreated = Schemas["ShareLinkCreated"];
export type DecisionRead = Schemas["DecisionRead"];
export type DecisionDraft = Schemas["DecisionDraft"];
export type DecisionCreate = Schemas["DecisionCreate"];
export type Verdict = Cell["verdict"];
export type Direction = ResultRow["direction"];

/**
 * Where a comparison comes from. The same page renders all three; only the endpoints differ, and a
 * saved or shared one reads exactly the runs frozen when it was saved.
 */
export type CompareSource =
  | { kind: "live"; slug: string; experiments: string[]; baseline: string; includeInvalid?: boolean }
  | { kind: "saved"; shortId: string; slug: string }
  | { kind: "share"; token: string };

// Overlays are drawn about 1,000 px wide: more points than this only cost bytes and render time.
export const OVERLAY_MAX_POINTS = 600;

export const compareKeys = {
  all: ["compare"] as const,
  live: (slug: string, experiments: string[], baseline: string, includeInvalid = false) =>
    [...compareKeys.all, "live", slug, experiments, baseline, includeInvalid] as const,
  saved: (shortId: string) => [...compareKeys.all, "saved", shortId] as const,
  share: (token: string) => [...compareKeys.all, "share", token] as const,
  overlay: (source: CompareSource, role: string, metric: string) =>
    [...compareKeys.all, "overlay", sourceKey(source), role, metric] as const,
  projectNotes: (slug: string) => [...compareKeys.all, "notes", slug] as const,
  decisions: (slug: string) => [...compareKeys.all, "decisions", slug] as const,
  prefill: (experimentId: number, baseline: string) =>
    [...compareKeys.all, "prefill", experimentId, baseline] as const,
  shareLinks: (slug: string) => [...compareKeys.all, "share-links", slug] as const,
};

function sourceKey(source: CompareSource): string {
  if (source.kind === "live") return `live:${source.slug}:${source.baseline}:${source.experiments.join(",")}`;
  if (source.kind === "saved") return `saved:${source.shortId}`;
  return `share:${source.token}`;
}

export function liveCompareQueryOptions(
  slug: string,
  experiments: string[],
  baseline: string,
  includeInvalid = false,
) {
  return queryOptions({
    queryKey: compareKeys.live(slug, experiments, baseline, includeInvalid),
    queryFn: ({ signal }) =>
      takeEarly(`compare:${JSON.stringify([slug, experiments, baseline, includeInvalid])}`, () =>
        unwrap(
          api.GET("/api/projects/{slug}/compare", {
            params: {
              path: { slug },
              query: {
                experiments,
                baseline: baseline || undefined,
                include_invalid: includeInvalid || undefined,
              },
            },
            signal,
          }),
        ),
      ),
    enabled: experiments.length > 0,
    // Switching the baseline keeps the table on screen until the new one arrives.
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });
}

export function savedComparisonQueryOptions(shortId: string) {
  return queryOptions({
    queryKey: compareKeys.saved(shortId),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/comparisons/{short_id}", { params: { path: { short_id: shortId } }, signal })),
    staleTime: 60_000,
  });
}

export function shareViewQueryOptions(token: string) {
  return queryOptions({
    queryKey: compareKeys.share(token),
    queryFn: ({ signal }) => unwrap(api.GET("/api/share/{token}", { params: { path: { token } }, signal })),
    // A revoked or expired link answers 404/410: asking again cannot change that, and every miss
    // counts towards the server's guessing limit.
    retry: false,
    staleTime: 60_000,
  });
}

export function overlayQueryOptions(source: CompareSource, role: string, metric: string) {
  const common = { role, metric, max_points: OVERLAY_MAX_POINTS };
  return queryOptions({
    queryKey: compareKeys.overlay(source, role, metric),
    queryFn: ({ signal }): Promise<OverlayReply> => {
      if (source.kind === "live") {
        return unwrap(
          api.GET("/api/projects/{slug}/compare/overlay", {
            params: {
              path: { slug: source.slug },
              query: { ...common, experiments: source.experiments, baseline: source.baseline || undefined },
            },
            signal,
          }),
        );
      }
      if (source.kind === "saved") {
        return unwrap(
          api.GET("/api/comparisons/{short_id}/overlay", {
            params: { path: { short_id: source.shortId }, query: common },
            signal,
          }),
        );
      }
      return unwrap(
        api.GET("/api/share/{token}/overlay", {
          params: { path: { token: source.token }, query: common },
          signal,
        }),
      );
    },
    retry: source.kind === "share" ? false : 2,
    staleTime: 60_000,
  });
}

/** Download links (CSV, JSON) for a source; a public share link offers none (it may read nothing else). */
export function exportHref(source: CompareSource, format: "csv" | "json"): string | null {
  if (source.kind === "share") return null;
  if (source.kind === "saved")
    return `/api/comparisons/${encodeURIComponent(source.shortId)}/export.${format}`;
  const q = new URLSearchParams();
  if (source.baseline) q.set("baseline", source.baseline);
  for (const e of source.experiments) q.append("experiments", e);
  if (source.includeInvalid) q.set("include_invalid", "true");
  return `/api/projects/${encodeURIComponent(source.slug)}/compare/export.${format}?${q.toString()}`;
}

// -- notes ----------------------------------------------------------------------------------------------

export function projectNotesQueryOptions(slug: string) {
  return queryOptions({
    queryKey: compareKeys.projectNotes(slug),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/projects/{slug}/notes", {
          params: { path: { slug }, query: { scope: "project" } },
          signal,
        }),
      ),
  });
}

export function useCreateNote(slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas["NoteCreate"]) =>
      unwrap(api.POST("/api/projects/{slug}/notes", { params: { path: { slug } }, body })),
    // Notes ride along in the compare reply and on overlays: refresh every view that shows them.
    onSuccess: () => qc.invalidateQueries({ queryKey: compareKeys.all }),
  });
}

export function useDeleteNote() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (noteId: number) =>
      unwrap(api.DELETE("/api/notes/{note_id}", { params: { path: { note_id: noteId } } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: compareKeys.all }),
  });
}

// -- decisions ------------------------------------------------------------------------------------------

export function decisionsQueryOptions(slug: string) {
  return queryOptions({
    queryKey: compareKeys.decisions(slug),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/projects/{slug}/decisions", { params: { path: { slug } }, signal })),
  });
}

export function prefillQueryOptions(experimentId: number, baseline: string) {
  return queryOptions({
    queryKey: compareKeys.prefill(experimentId, baseline),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/experiments/{experiment_id}/decisions/prefill", {
          params: { path: { experiment_id: experimentId }, query: { baseline } },
          signal,
        }),
      ),
    staleTime: 5 * 60_000,
  });
}

export function useCreateDecision(slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: DecisionCreate) =>
      unwrap(api.POST("/api/projects/{slug}/decisions", { params: { path: { slug } }, body })),
    onSuccess: () =>
      Promise.all([
        qc.invalidateQueries({ queryKey: compareKeys.decisions(slug) }),
        // The history's Decision column reads the latest decision of each experiment.
        qc.invalidateQueries({ queryKey: ["experiments"] }),
      ]),
  });
}

// -- saving and sharing ---------------------------------------------------------------------------------

export function useSaveComparison(slug: string) {
  return useMutation({
    mutationFn: (body: Schemas["ComparisonCreate"]) =>
      unwrap(api.POST("/api/projects/{slug}/comparisons", { params: { path: { slug } }, body })),
  });
}

export function shareLinksQueryOptions(slug: string) {
  return queryOptions({
    queryKey: compareKeys.shareLinks(slug),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/projects/{slug}/share-links", { params: { path: { slug } }, signal })),
  });
}

export function useCreateShareLink(slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ shortId, ...body }: { shortId: string } & Schemas["ShareLinkCreate"]) =>
      unwrap(
        api.POST("/api/comparisons/{short_id}/share-links", {
          params: { path: { short_id: shortId } },
          body,
        }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: compareKeys.shareLinks(slug) }),
  });
}

export function useRevokeShareLink(slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (linkId: number) =>
      unwrap(api.DELETE("/api/share-links/{link_id}", { params: { path: { link_id: linkId } } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: compareKeys.shareLinks(slug) }),
  });
}
