// Where each frame goes for one viewport and zoom: x and width as fractions of the view, depth as a row.
// Frames narrower than a pixel threshold are culled with their whole subtree (children are never wider
// than their parent), so the cost follows what is visible, not the size of the profile.
import type { FrameTree } from "./tree";

export type Orientation = "flame" | "icicle";

export interface LayoutOptions {
  /** The node whose subtree fills the width; its ancestors are drawn full width below (or above) it. */
  zoom?: number;
  /** Width of the view in CSS pixels. */
  widthPx: number;
  /** Frames narrower than this many pixels are not laid out (default 0.5). */
  minWidthPx?: number;
  /**
   * Widths to lay out by, when not the tree's own totals (a diff lays out the baseline's counts over the
   * merged tree). Same indexing as the tree.
   */
  weights?: Float64Array;
}

export interface Layout {
  readonly tree: FrameTree;
  readonly zoom: number;
  /** Number of laid-out frames; the arrays below are valid up to count. */
  readonly count: number;
  readonly node: Int32Array;
  /** Left edge and width, fractions of the view width (0..1). */
  readonly x: Float64Array;
  readonly w: Float64Array;
  readonly depth: Int32Array;
  /** Deepest laid-out depth (rows = maxDepth + 1). */
  readonly maxDepth: number;
  /** Frame indices (into node/x/w) grouped by depth, left to right: row d is rowIndex[rowStart[d] .. rowStart[d + 1]). */
  readonly rowStart: Int32Array;
  readonly rowIndex: Int32Array;
  /** Layout slot of each tree node, -1 when culled. */
  readonly slotOf: Int32Array;
}

export function layoutTree(tree: FrameTree, opts: LayoutOptions): Layout {
  const zoom = opts.zoom !== undefined && opts.zoom >= 0 && opts.zoom < tree.size ? opts.zoom : 0;
  const weights = opts.weights ?? tree.total;
  const minW = Math.max(0, opts.minWidthPx ?? 0.5) / Math.max(1, opts.widthPx);
  const { parent, end, depth } = tree;

  // Ancestors of the zoomed node: full width.
  const chain: number[] = [];
  for (let a = zoom; a > 0; a = parent[a] as number) chain.push(a);
  chain.push(0);
  chain.reverse();

  const cap = Math.min(tree.size, (end[zoom] as number) - zoom + chain.length);
  const node = new Int32Array(cap);
  const x = new Float64Array(cap);
  const w = new Float64Array(cap);
  const dep = new Int32Array(cap);
  const slotOf = new Int32Array(tree.size).fill(-1);
  let count = 0;
  let maxDepth = 0;
  const zoomTotal = weights[zoom] as number;
  const scale = zoomTotal > 0 ? 1 / zoomTotal : 0;

  for (const a of chain) {
    if (a === zoom) break;
    if (scale === 0) break;
    slotOf[a] = count;
    node[count] = a;
    x[count] = 0;
    w[count] = 1;
    const d = depth[a] as number;
    dep[count++] = d;
    if (d > maxDepth) maxDepth = d;
  }

  if (scale > 0) {
    // Pre-order walk of the zoomed subtree. nextX[d] is where the next frame at depth d starts: entering
    // a node sets its children's cursor to its own left edge (children are left-aligned, self time
    // follows on the right, as in flamegraph.pl).
    const zoomDepth = depth[zoom] as number;
    const nextX = new Float64Array(tree.maxDepth + 2);
    nextX[zoomDepth] = 0;
    const stop = end[zoom] as number;
    let i = zoom;
    while (i < stop) {
      const d = depth[i] as number;
      const wi = (weights[i] as number) * scale;
      const xi = nextX[d] as number;
      nextX[d] = xi + wi;
      if (wi < minW || wi <= 0) {
        i = end[i] as number; // culled with its subtree
        continue;
      }
      nextX[d + 1] = xi;
      slotOf[i] = count;
      node[count] = i;
      x[count] = xi;
      w[count] = wi;
      dep[count++] = d;
      if (d > maxDepth) maxDepth = d;
      i++;
    }
  }

  // Group by depth (counting sort keeps left-to-right order within a row).
  const rowStart = new Int32Array(maxDepth + 2);
  for (let k = 0; k < count; k++) {
    const r = (dep[k] as number) + 1;
    rowStart[r] = (rowStart[r] as number) + 1;
  }
  for (let d = 1; d < rowStart.length; d++)
    rowStart[d] = (rowStart[d] as number) + (rowStart[d - 1] as number);
  const fill = rowStart.slice(0, maxDepth + 1);
  const rowIndex = new Int32Array(count);
  for (let k = 0; k < count; k++) {
    const d = dep[k] as number;
    rowIndex[fill[d] as number] = k;
    fill[d] = (fill[d] as number) + 1;
  }

  return { tree, zoom, count, node, x, w, depth: dep, maxDepth, rowStart, rowIndex, slotOf };
}

/** The laid-out frame under a point (x as a fraction of the view, depth as a row), or -1. */
export function hitTest(layout: Layout, xFrac: number, depth: number): number {
  if (depth < 0 || depth > layout.maxDepth) return -1;
  let lo = layout.rowStart[depth] as number;
  let hi = (layout.rowStart[depth + 1] as number) - 1;
  // Binary search for the last frame starting at or before x.
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const k = layout.rowIndex[mid] as number;
    if ((layout.x[k] as number) <= xFrac) {
      found = k;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (found < 0) return -1;
  return xFrac < (layout.x[found] as number) + (layout.w[found] as number)
    ? (layout.node[found] as number)
    : -1;
}

/**
 * Row on screen of a depth: icicle puts the root on top (row 0); flame puts it at the bottom of `rows`
 * rows (rows >= maxDepth + 1 so zooming does not make the graph jump).
 */
export function rowOfDepth(depth: number, rows: number, orientation: Orientation): number {
  return orientation === "icicle" ? depth : rows - 1 - depth;
}

export function depthOfRow(row: number, rows: number, orientation: Orientation): number {
  return orientation === "icicle" ? row : rows - 1 - row;
}
