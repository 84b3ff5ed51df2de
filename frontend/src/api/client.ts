// The typed API client. Types come from schema.d.ts (generated from the server's OpenAPI document by
// `npm run gen:api`); never write request or response types by hand.
import createClient, { type Middleware } from "openapi-fetch";
import { ApiError } from "@/lib/api-error";
import { readCookie } from "@/lib/cookies";
import type { components, paths } from "./schema";

export type Schemas = components["schemas"];

export const CSRF_COOKIE = "perflab_csrf";
export const CSRF_HEADER = "X-CSRF-Token";
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

// The session cookie is httponly; the CSRF cookie is readable on purpose so that we can echo it in a
// header, which a cross-site form or <img> cannot do.
const csrfMiddleware: Middleware = {
  onRequest({ request }) {
    if (!SAFE_METHODS.has(request.method.toUpperCase())) {
      const token = typeof document === "undefined" ? null : readCookie(CSRF_COOKIE, document.cookie);
      if (token) request.headers.set(CSRF_HEADER, token);
    }
    return request;
  },
};

export const api = createClient<paths>({
  // Same origin in production (served by `perflab serve`) and in development (Vite proxies /api).
  baseUrl: typeof window === "undefined" ? "http://localhost" : window.location.origin,
  credentials: "same-origin",
});
api.use(csrfMiddleware);

type FetchResult<T> = { data?: T; error?: unknown; response: Response };

/**
 * Awaits an openapi-fetch call and returns its data, or throws an ApiError carrying the server's
 * {"error", "detail"}. Network failures become ApiError with status 0 so every caller handles one type.
 */
export async function unwrap<T>(call: Promise<FetchResult<T>>): Promise<T> {
  let result: FetchResult<T>;
  try {
    result = await call;
  } catch (e) {
    if (e instanceof DOMException && e.name === "AbortError") throw e;
    throw ApiError.network(e);
  }
  if (!result.response.ok || result.error !== undefined) {
    throw ApiError.fromResponse(result.response, result.error);
  }
  return result.data as T;
}
