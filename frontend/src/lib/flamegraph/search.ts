// Regex search over frame names: which frames match, and what share of the samples they cover. A
// sample is counted once even when several frames of its stack match (a match nested under another
// match adds nothing), so "matched X%" never exceeds 100%.
import type { FrameTree } from "./tree";

export type CompiledSearch = { ok: true; regex: RegExp | null } | { ok: false; error: string };

/**
 * Compiles what the user typed. Empty means no search. Smart case: case-insensitive unless the
 * pattern has an upper-case letter (escapes such as \S do not count). Invalid syntax is an error
 * message, never an exception.
 */
export function compileSearch(pattern: string): CompiledSearch {
  if (!pattern) return { ok: true, regex: null };
  const caseSensitive = /[A-Z]/.test(pattern.replace(/\\./g, ""));
  try {
    return { ok: true, regex: new RegExp(pattern, caseSensitive ? "" : "i") };
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    return { ok: false, error: msg.replace(/^Invalid regular expression: /, "Invalid regular expression: ") };
  }
}

export interface SearchResult {
  /** 1 for nodes whose name matches. */
  readonly matched: Uint8Array;
  /** Number of matching nodes. */
  readonly nodes: number;
  /** Distinct matching names. */
  readonly names: number;
  /** Samples (in the tree's unit) under at least one matching frame. */
  readonly total: number;
  /** total / the tree's total (0..1). */
  readonly fraction: number;
}

/**
 * Matches each distinct name once, then one pre-order pass: a matched node's total counts unless an
 * ancestor already matched. `weights` replaces the tree's totals (a diff searches the baseline's counts).
 */
export function searchTree(tree: FrameTree, regex: RegExp, weights: Float64Array = tree.total): SearchResult {
  // 0 = not tested yet, 1 = no match, 2 = match, 3 = match already counted in `names`.
  const nameHit = new Uint8Array(tree.names.length);
  const re = new RegExp(regex.source, regex.flags.replace(/[gy]/g, "")); // no lastIndex state
  const matched = new Uint8Array(tree.size);
  let names = 0;
  let nodes = 0;
  let total = 0;
  let coveredUntil = 0; // nodes below this index are inside a counted match
  // Node 0 is the root ("all"): not a frame of any stack, it never matches.
  for (let i = 1; i < tree.size; i++) {
    const nm = tree.nameId[i] as number;
    let hit = nameHit[nm] as number;
    if (hit === 0) {
      hit = re.test(tree.names[nm] as string) ? 2 : 1;
      nameHit[nm] = hit;
    }
    if (hit === 1) continue;
    if (hit === 2) {
      names++;
      nameHit[nm] = 3;
    }
    matched[i] = 1;
    nodes++;
    if (i >= coveredUntil) {
      total += weights[i] as number;
      coveredUntil = tree.end[i] as number;
    }
  }
  const all = weights[0] as number;
  return { matched, nodes, names, total, fraction: all > 0 ? total / all : 0 };
}

/** "12.3%" style share for display, with enough digits for small but non-zero shares. */
export function formatShare(fraction: number): string {
  const pct = fraction * 100;
  if (pct === 0) return "0%";
  if (pct < 0.1) return "<0.1%";
  return `${pct.toFixed(pct >= 99.95 ? 0 : 1)}%`;
}
