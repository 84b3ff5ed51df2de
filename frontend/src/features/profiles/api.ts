// Profiles on the server: metadata, the merged tree, the diff of two, lists, and the upload (raw bytes,
// any supported format, with progress). Trees arrive as compact JSON and are turned into the flame graph
// model inside the queryFn, so the cache holds the model and every view shares one copy.
import { queryOptions } from "@tanstack/react-query";
import { api, CSRF_COOKIE, CSRF_HEADER, type Schemas, unwrap } from "@/api/client";
import { ApiError } from "@/lib/api-error";
import { readCookie } from "@/lib/cookies";
import { type DiffTree, type FrameTree, fromApiDiff, fromApiTree } from "@/lib/flamegraph";

export type ProfileMeta = Schemas["ProfileRead"];
export type UploadResult = Schemas["ProfileCreated"];

export const profileKeys = {
  all: ["profiles"] as const,
  meta: (id: string) => ["profiles", "meta", id] as const,
  tree: (id: string) => ["profiles", "tree", id] as const,
  diff: (base: string, other: string) => ["profiles", "diff", base, other] as const,
  run: (runId: string) => ["profiles", "run", runId] as const,
  project: (slug: string) => ["profiles", "project", slug] as const,
};

const byId = (id: string) => ({ params: { path: { profile_id: id } } });
const enc = encodeURIComponent;

export function profileQueryOptions(id: string) {
  return queryOptions({
    queryKey: profileKeys.meta(id),
    queryFn: ({ signal }) => unwrap(api.GET("/api/profiles/{profile_id}", { ...byId(id), signal })),
    staleTime: Number.POSITIVE_INFINITY, // a stored profile never changes
  });
}

export function profileTreeQueryOptions(id: string) {
  return queryOptions({
    queryKey: profileKeys.tree(id),
    queryFn: async ({ signal }): Promise<FrameTree> =>
      fromApiTree(await unwrap(api.GET("/api/profiles/{profile_id}/tree", { ...byId(id), signal }))),
    staleTime: Number.POSITIVE_INFINITY,
    enabled: !!id,
  });
}

export function profileDiffQueryOptions(base: string, other: string) {
  return queryOptions({
    queryKey: profileKeys.diff(base, other),
    queryFn: async ({ signal }): Promise<DiffTree> =>
      fromApiDiff(
        await unwrap(
          api.GET("/api/profiles/{profile_id}/diff", {
            params: { path: { profile_id: base }, query: { other } },
            signal,
          }),
        ),
      ),
    staleTime: Number.POSITIVE_INFINITY,
    enabled: !!base && !!other,
  });
}

export function runProfilesQueryOptions(runId: string) {
  return queryOptions({
    queryKey: profileKeys.run(runId),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/runs/{run_id}/profiles", { params: { path: { run_id: runId } }, signal })),
  });
}

export function projectProfilesQueryOptions(slug: string) {
  return queryOptions({
    queryKey: profileKeys.project(slug),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/projects/{slug}/profiles", { params: { path: { slug } }, signal })),
  });
}

/** Where the original upload can be downloaded (served as an attachment; never rendered in the app). */
export function originalDownloadUrl(id: string): string {
  return `/api/profiles/${enc(id)}/original`;
}

export interface UploadArgs {
  runId: string;
  file: Blob;
  name: string;
  role?: string;
  /** What a count is, when the file cannot say (folded stacks): "samples", "nanoseconds", ... */
  unit?: string;
  onProgress?: (loaded: number, total: number) => void;
  signal?: AbortSignal;
}

/**
 * POSTs the file's bytes as they are (gzip included: the server detects it). XMLHttpRequest rather than
 * fetch because only it reports upload progress.
 */
export function uploadProfile({
  runId,
  file,
  name,
  role,
  unit,
  onProgress,
  signal,
}: UploadArgs): Promise<UploadResult> {
  const q = new URLSearchParams({ name });
  if (role) q.set("role", role);
  if (unit) q.set("unit", unit);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `/api/runs/${enc(runId)}/profiles?${q}`);
    xhr.withCredentials = true;
    xhr.setRequestHeader("Content-Type", "application/octet-stream");
    xhr.setRequestHeader("Accept", "application/json");
    const csrf = readCookie(CSRF_COOKIE, document.cookie);
    if (csrf) xhr.setRequestHeader(CSRF_HEADER, csrf);
    xhr.upload.onprogress = (e) => onProgress?.(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onerror = () => reject(ApiError.network(new Error("upload failed")));
    xhr.onabort = () => reject(new DOMException("aborted", "AbortError"));
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = xhr.responseText ? JSON.parse(xhr.responseText) : null;
      } catch {
        body = xhr.responseText;
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body as UploadResult);
      else {
        const headers = new Headers();
        const retry = xhr.getResponseHeader("Retry-After");
        if (retry) headers.set("Retry-After", retry);
        reject(ApiError.fromResponse(new Response(null, { status: xhr.status, headers }), body));
      }
    };
    signal?.addEventListener("abort", () => xhr.abort());
    xhr.send(file);
  });
}

/** Corrects what a count is after upload (values stay as uploaded). */
export async function setProfileUnit(profileId: string, unit: string) {
  return unwrap(
    api.PATCH("/api/profiles/{profile_id}", { params: { path: { profile_id: profileId } }, body: { unit } }),
  );
}
