// Helpers for keeping view state in the URL's search params, so that a page can be reloaded,
// bookmarked or pasted into a code review and show exactly the same thing.
// Conventions: defaults are never written (short, canonical URLs); lists are repeated keys
// (?tag=a&tag=b), which is also how FastAPI reads list query parameters.

export type ParamValue = string | number | boolean | readonly (string | number)[] | null | undefined;

/** A positive integer from a param, or the fallback when absent or malformed. */
export function readInt(
  params: URLSearchParams,
  key: string,
  fallback: number,
  min = 1,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const raw = params.get(key);
  if (raw === null || !/^\d+$/.test(raw)) return fallback;
  const n = Number.parseInt(raw, 10);
  return n >= min && n <= max ? n : fallback;
}

/** One of a fixed set of values, or the fallback. */
export function readEnum<T extends string>(
  params: URLSearchParams,
  key: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const raw = params.get(key);
  return raw !== null && (allowed as readonly string[]).includes(raw) ? (raw as T) : fallback;
}

export function readString(params: URLSearchParams, key: string): string {
  return params.get(key)?.trim() ?? "";
}

/** Repeated keys, de-duplicated, blanks dropped, first-seen order kept. */
export function readList(params: URLSearchParams, key: string): string[] {
  const seen = new Set<string>();
  for (const v of params.getAll(key)) {
    const t = v.trim();
    if (t) seen.add(t);
  }
  return [...seen];
}

export function readIntList(params: URLSearchParams, key: string): number[] {
  return readList(params, key)
    .filter((v) => /^\d+$/.test(v))
    .map((v) => Number.parseInt(v, 10));
}

/** A calendar date (YYYY-MM-DD), as typed into <input type="date">, or "" when invalid. */
export function readDate(params: URLSearchParams, key: string): string {
  const raw = params.get(key) ?? "";
  if (!/^\d{4}-\d{2}-\d{2}$/.test(raw)) return "";
  return Number.isNaN(Date.parse(`${raw}T00:00:00`)) ? "" : raw;
}

/**
 * Returns new params with `patch` applied: null/undefined/""/[] or a value equal to its default
 * removes the key; arrays become repeated keys. Keys not in the patch are kept as they were.
 */
export function patchParams(
  current: URLSearchParams,
  patch: Record<string, ParamValue>,
  defaults: Record<string, ParamValue> = {},
): URLSearchParams {
  const next = new URLSearchParams(current);
  for (const [key, value] of Object.entries(patch)) {
    next.delete(key);
    if (value === null || value === undefined || value === "") continue;
    if (Array.isArray(value)) {
      for (const v of value) next.append(key, String(v));
      continue;
    }
    const scalar = String(value);
    const def = defaults[key];
    if (def !== undefined && def !== null && !Array.isArray(def) && String(def) === scalar) continue;
    next.append(key, scalar);
  }
  next.sort();
  return next;
}

/** Adds or removes one value of a repeated key. */
export function toggleInList<T extends string | number>(list: readonly T[], value: T): T[] {
  return list.includes(value) ? list.filter((v) => v !== value) : [...list, value];
}

/**
 * The start of a local calendar day as an ISO instant, for "created after" filters. The end of a
 * range uses the next day's start with an exclusive bound, so "to 2026-11-22" includes that day.
 */
export function dayStartIso(date: string, addDays = 0): string | undefined {
  if (!date) return undefined;
  const [y, m, d] = date.split("-").map((p) => Number.parseInt(p, 10));
  if (y === undefined || m === undefined || d === undefined) return undefined;
  const t = new Date(y, m - 1, d + addDays, 0, 0, 0, 0);
  return Number.isNaN(t.getTime()) ? undefined : t.toISOString();
}

/**
 * A safe in-app path to return to after login: must be a local absolute path. Anything else
 * (another origin, "//evil.example", "javascript:") falls back, so ?next= cannot redirect away.
 */
export function safeNextPath(next: string | null | undefined, fallback = "/projects"): string {
  if (!next?.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return fallback;
  if (next.startsWith("/login")) return fallback;
  return next;
}

/**
 * The query string for a link: ":" and "," left unescaped (they mean nothing special in a query), so a
 * shared view reads ?m=proxy:vmstat.sy,proxy:pidstat.cpu_pct instead of a wall of %3A and %2C.
 */
export function readableSearch(params: URLSearchParams): string {
  const s = params.toString().replace(/%3A/gi, ":").replace(/%2C/gi, ",");
  return s ? `?${s}` : "";
}
