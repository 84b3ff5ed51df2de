// Import endpoints: a per-file preview (detected kind, parsed values, warnings) and the import itself;
// the project's experiments for the picker.
import { keepPreviousData, queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { api, type Schemas, unwrap } from "@/api/client";
import { fileBody, type ImportEntry } from "./import-files";

export type FilePart = Schemas["FilePreview"];
/** One file's preview; ``parts`` when the file holds several tools' outputs (the first is spread here). */
export type FilePreview = FilePart & { parts?: FilePart[] };
export type ImportResult = Schemas["ImportResult"];

export const importKeys = {
  preview: (slug: string, e: Pick<ImportEntry, "id" | "version" | "kind">) =>
    ["imports", "preview", slug, e.id, e.version, e.kind] as const,
  experiments: (slug: string, q: string) => ["imports", "experiments", slug, q] as const,
};

/**
 * One file's preview. Files are previewed one request each, so a binary file refused with a 400 does not
 * hide what the others parsed. The key carries a version, not the content: it changes when the text does.
 */
export function previewQueryOptions(slug: string, entry: ImportEntry) {
  return queryOptions({
    queryKey: importKeys.preview(slug, entry),
    queryFn: async ({ signal }) => {
      const reply = await unwrap(
        api.POST("/api/projects/{slug}/imports/preview", {
          params: { path: { slug } },
          body: { files: [{ ...fileBody(entry), role: null }] },
          signal,
        }),
      );
      const first = reply.files[0];
      if (!first) throw new Error("The server returned no preview for this file.");
      // A file holding several tools' outputs (wrk, then a strace -c table) comes back as parts.
      return reply.files.length > 1 ? { ...first, parts: reply.files } : first;
    },
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: 60_000,
    retry: false,
  });
}

export function experimentSearchQueryOptions(slug: string, q: string) {
  return queryOptions({
    queryKey: importKeys.experiments(slug, q),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/projects/{slug}/experiments", {
          params: { path: { slug }, query: { q: q || null, page_size: 20, sort: "created", order: "desc" } },
          signal,
        }),
      ),
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });
}

export interface ImportRequest {
  experiment: string;
  label: string;
  hypothesis: string;
  entries: ImportEntry[];
}

export function useCreateImport(slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (r: ImportRequest) =>
      unwrap(
        api.POST("/api/projects/{slug}/imports", {
          params: { path: { slug } },
          body: {
            experiment: r.experiment.trim(),
            label: r.label.trim(),
            hypothesis: r.hypothesis.trim(),
            files: r.entries.map(fileBody),
          },
        }),
      ),
    // The history, experiment pages and pickers all show run counts and headlines.
    onSuccess: () =>
      Promise.all([
        qc.invalidateQueries({ queryKey: ["experiments"] }),
        qc.invalidateQueries({ queryKey: ["imports", "experiments"] }),
      ]),
  });
}

/** Host roles the project's runs already use, most used first: offered for every file. */
export function projectRolesQueryOptions(slug: string) {
  return queryOptions({
    queryKey: ["imports", "roles", slug] as const,
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/projects/{slug}/roles", { params: { path: { slug } }, signal })),
    staleTime: 60_000,
  });
}
