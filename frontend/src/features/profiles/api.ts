// Profiles on the server: metadata, the merged tree, the diff of two, lists, and the upload (raw bytes,
// any supported format, with progress). Trees arrive as compact JSON and are turned into the flame graph
// model once per query, in `select`-free queryFns so the cache holds the model itself.
import { queryOptions } from "@tanstack/react-query";
import { CSRF_COOKIE, CSRF_HEADER } from "@/api/client";
import { ApiError } from "@/lib/api-error";
import { readCookie } from "@/lib/cookies";
import {
  type ApiDiff,
  type ApiTree,
  type DiffTree,
  type FrameTree,
  fromApiDiff,
  fromApiTree,
} from "@/lib/flamegraph";

export interface ProfileMeta {
  profile_id: string;
  run_id: string;
  name: string;
  role: string | null;
  format: string;
  unit: string;
  event?: string | null;
  total: number;
  frames: number;
  lossy: boolean;
  tolerance?: number | null;
  warnings?: string[];
  created_at?: string;
  experiment_id?: number | null;
  experiment_name?: string | null;
  run_label?: string | null;
}

export type UploadResult = Pick<ProfileMeta, "profile_id" | "format" | "unit" | "total" | "frames" | "lossy">;

export const profileKeys = {
  all: ["profiles"] as const,
  meta: (id: string) => ["profiles", "meta", id] as const,
  tree: (id: string) => ["profiles", "tree", id] as const,
  diff: (base: string, other: string) => ["profiles", "diff", base, other] as const,
  run: (runId: string) => ["profiles", "run", runId] as const,
  project: (slug: string) => ["profiles", "project", slug] as const,
};

async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, { credentials: "same-origin", signal, headers: { Accept: "application/json" } });
  } catch (e) {
    if (e instanceof DOMException && e.name === "AbortError") throw e;
    throw ApiError.network(e);
  }
  const body = await readBody(res);
  if (!res.ok) throw ApiError.fromResponse(res, body);
  return body as T;
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const enc = encodeURIComponent;

export function profileQueryOptions(id: string) {
  return queryOptions({
    queryKey: profileKeys.meta(id),
    queryFn: ({ signal }) => getJson<ProfileMeta>(`/api/profiles/${enc(id)}`, signal),
    staleTime: Number.POSITIVE_INFINITY, // a stored profile never changes
  });
}

export function profileTreeQueryOptions(id: string) {
  return queryOptions({
    queryKey: profileKeys.tree(id),
    queryFn: async ({ signal }): Promise<FrameTree> =>
      fromApiTree(await getJson<ApiTree>(`/api/profiles/${enc(id)}/tree`, signal)),
    staleTime: Number.POSITIVE_INFINITY,
    enabled: !!id,
  });
}

export function profileDiffQueryOptions(base: string, other: string) {
  return queryOptions({
    queryKey: profileKeys.diff(base, other),
    queryFn: async ({ signal }): Promise<DiffTree> =>
      fromApiDiff(await getJson<ApiDiff>(`/api/profiles/${enc(base)}/diff?other=${enc(other)}`, signal)),
    staleTime: Number.POSITIVE_INFINITY,
    enabled: !!base && !!other,
  });
}

export function runProfilesQueryOptions(runId: string) {
  return queryOptions({
    queryKey: profileKeys.run(runId),
    queryFn: ({ signal }) => getJson<ProfileMeta[]>(`/api/runs/${enc(runId)}/profiles`, signal),
  });
}

export function projectProfilesQueryOptions(slug: string) {
  return queryOptions({
    queryKey: profileKeys.project(slug),
    queryFn: ({ signal }) => getJson<ProfileMeta[]>(`/api/projects/${enc(slug)}/profiles`, signal),
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
  onProgress,
  signal,
}: UploadArgs): Promise<UploadResult> {
  const q = new URLSearchParams({ name });
  if (role) q.set("role", role);
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
