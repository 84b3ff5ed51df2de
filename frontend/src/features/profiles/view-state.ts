// The viewer's and the comparison's view state, read from and written to the URL so that a link
// reopens exactly the same view: zoom (as a frame path, so it survives reloads and applies to another
// profile), search, orientation, selected function, table sort, tab.
import type { Orientation } from "@/lib/flamegraph";
import { type ParamValue, patchParams, readEnum, readString } from "@/lib/url-state";

export const ORIENTATIONS = ["flame", "icicle"] as const satisfies readonly Orientation[];
export const VIEWER_TABS = ["graph", "functions"] as const;
export const COMPARE_TABS = ["diff", "side"] as const;
export const SORTS = ["total", "self"] as const;
export const DIFF_SORTS = ["delta_total", "delta_self", "total", "self"] as const;
export const COLOR_BY = ["total", "self"] as const;

export interface ViewState {
  /** Frame names from the root's child down to the zoomed frame; [] = not zoomed. */
  zoom: string[];
  q: string;
  mode: Orientation;
  fn: string;
  sort: (typeof SORTS)[number];
  tab: (typeof VIEWER_TABS)[number];
}

export const VIEW_DEFAULTS: Record<string, ParamValue> = { mode: "flame", sort: "total", tab: "graph" };

/** Zoom paths are written like folded stacks: names joined by ";" (a frame name never holds one). */
export function encodePath(path: readonly string[]): string {
  return path.join(";");
}

export function decodePath(raw: string | null): string[] {
  if (!raw) return [];
  return raw.split(";").filter((s) => s.length > 0);
}

export function readViewState(params: URLSearchParams): ViewState {
  return {
    zoom: decodePath(params.get("zoom")),
    // The search is not trimmed: a regex may mean its spaces.
    q: params.get("q") ?? "",
    mode: readEnum(params, "mode", ORIENTATIONS, "flame"),
    fn: params.get("fn") ?? "",
    sort: readEnum(params, "sort", SORTS, "total"),
    tab: readEnum(params, "tab", VIEWER_TABS, "graph"),
  };
}

export interface CompareState {
  base: string;
  other: string;
  zoom: string[];
  q: string;
  mode: Orientation;
  tab: (typeof COMPARE_TABS)[number];
  by: (typeof COLOR_BY)[number];
  sort: (typeof DIFF_SORTS)[number];
}

export const COMPARE_DEFAULTS: Record<string, ParamValue> = {
  mode: "flame",
  tab: "diff",
  by: "total",
  sort: "delta_total",
};

export function readCompareState(params: URLSearchParams): CompareState {
  return {
    base: readString(params, "base"),
    other: readString(params, "other"),
    zoom: decodePath(params.get("zoom")),
    q: params.get("q") ?? "",
    mode: readEnum(params, "mode", ORIENTATIONS, "flame"),
    tab: readEnum(params, "tab", COMPARE_TABS, "diff"),
    by: readEnum(params, "by", COLOR_BY, "total"),
    sort: readEnum(params, "sort", DIFF_SORTS, "delta_total"),
  };
}

/** New params with a zoom path (empty path removes the key). */
export function withZoom(params: URLSearchParams, path: readonly string[]): URLSearchParams {
  return patchParams(params, { zoom: path.length ? encodePath(path) : null });
}
