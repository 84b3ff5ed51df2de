// The compare page's view state, kept in the URL so that a pasted address shows the same thing:
//   e=12&e=13            experiments by id, in order (stable across renames; names are shown; old
//                        links with names still resolve and are rewritten to ids)
//   base=12              the baseline (default: the first experiment)
//   inv=1                invalid runs counted in medians and verdicts (default: left out)
//   m=proxy:vmstat.sy    overlay charts shown, as role:metric (absent: the default charts)
//   hide=syscalls        collapsed sections
// A saved comparison stores the same state in its view_state and restores it.
import { patchParams, readList } from "@/lib/url-state";
import type { OverlayMetric, ViewState } from "./api";

export const SECTIONS = [
  "movers",
  "telemetry",
  "syscalls",
  "netqtop",
  "changes",
  "notes",
  "decisions",
] as const;
export type SectionId = (typeof SECTIONS)[number];

export interface OverlayChoice {
  role: string;
  metric: string;
}

export interface CompareViewState {
  experiments: string[];
  baseline: string;
  /** null: the default charts for what the comparison has. */
  overlays: OverlayChoice[] | null;
  hidden: SectionId[];
  /** Invalid runs (error responses, no requests) counted anyway. */
  includeInvalid: boolean;
}

function isSection(s: string): s is SectionId {
  return (SECTIONS as readonly string[]).includes(s);
}

export function parseOverlay(raw: string): OverlayChoice | null {
  const i = raw.indexOf(":");
  if (i <= 0 || i === raw.length - 1) return null;
  return { role: raw.slice(0, i), metric: raw.slice(i + 1) };
}

export function overlayParam(o: OverlayChoice): string {
  return `${o.role}:${o.metric}`;
}

export function parseCompareState(params: URLSearchParams): CompareViewState {
  const m = readList(params, "m");
  return {
    experiments: readList(params, "e"),
    baseline: params.get("base")?.trim() ?? "",
    overlays: m.length ? m.map(parseOverlay).filter((o): o is OverlayChoice => o !== null) : null,
    hidden: readList(params, "hide").filter(isSection),
    includeInvalid: params.get("inv") === "1",
  };
}

/**
 * New params with the change applied. `explicit`: a saved comparison's page, where an absent key means
 * "as saved", so showing every section is written as hide=none.
 */
export function updateCompareParams(
  current: URLSearchParams,
  change: Partial<CompareViewState>,
  explicit = false,
): URLSearchParams {
  const patch: Record<string, string | string[] | null> = {};
  if (change.experiments) patch.e = change.experiments;
  if (change.baseline !== undefined) patch.base = change.baseline || null;
  if (change.overlays !== undefined) patch.m = change.overlays ? change.overlays.map(overlayParam) : null;
  if (change.hidden) patch.hide = change.hidden.length || !explicit ? change.hidden : ["none"];
  if (change.includeInvalid !== undefined) patch.inv = change.includeInvalid ? "1" : null;
  return patchParams(current, patch);
}

// What an engineer looks at first on each host (sy% is the nginx-proxy-buffers story): CPU split,
// interrupts and context switches from vmstat, then %CPU of each watched command from pidstat.
const DEFAULT_KEYS = ["vmstat.sy", "vmstat.us", "vmstat.in", "vmstat.cs"];
const MAX_DEFAULT_COMMANDS = 3;

/** The charts shown when the URL names none: the default metrics that the comparison has. */
export function defaultOverlays(available: readonly OverlayMetric[]): OverlayChoice[] {
  const roles = [...new Set(available.map((m) => m.role))];
  const out: OverlayChoice[] = [];
  for (const role of roles) {
    const keys = new Set(available.filter((m) => m.role === role).map((m) => m.key));
    for (const k of DEFAULT_KEYS) if (keys.has(k)) out.push({ role, metric: k });
    const commands = [...keys].filter((k) => k.startsWith("pidstat.cpu_pct[")).slice(0, MAX_DEFAULT_COMMANDS);
    for (const k of commands) out.push({ role, metric: k });
  }
  return out;
}

/** The state a saved comparison stores (the server keeps overlays; the rest is UI-owned). */
export function toViewState(state: CompareViewState, overlays: OverlayChoice[]): ViewState {
  return {
    overlays: overlays.map((o) => ({ role: o.role, metric: o.metric })),
    metrics: [],
    sections: SECTIONS.filter((s) => !state.hidden.includes(s)),
    time_range: null,
    ui: { hidden: state.hidden, explicitOverlays: state.overlays !== null },
    include_invalid: state.includeInvalid,
  };
}

/** The view of a saved comparison: its stored state, unless the URL says otherwise. */
export function fromViewState(
  saved: ViewState | undefined,
  params: URLSearchParams,
): Pick<CompareViewState, "overlays" | "hidden"> {
  const fromUrl = parseCompareState(params);
  const ui = (saved?.ui ?? {}) as { hidden?: unknown; explicitOverlays?: unknown };
  const savedHidden = Array.isArray(ui.hidden)
    ? ui.hidden.filter((s): s is SectionId => isSection(String(s)))
    : [];
  const savedOverlays = saved?.overlays?.length
    ? saved.overlays.map((o) => ({ role: o.role, metric: o.metric }))
    : null;
  return {
    overlays: fromUrl.overlays ?? savedOverlays,
    hidden: params.has("hide") ? fromUrl.hidden : savedHidden,
  };
}
