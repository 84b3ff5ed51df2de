// Paints a laid-out flame graph on a 2D canvas. Only the visible rows are drawn, text is fitted with an
// ellipsis from cached measurements, and colours are cached per name (or per node for a diff), so a
// redraw of tens of thousands of frames stays within one animation frame. Frame names only ever reach
// the canvas through fillText: they are never parsed as markup.
import {
  dim,
  type FrameTree,
  type Layout,
  MATCH_COLOR,
  nameColor,
  type Orientation,
  type Rgb,
  rgbCss,
  rowOfDepth,
  textOn,
} from "@/lib/flamegraph";

export const ROW_HEIGHT = 18;
const FONT = '11.5px ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif';
const TEXT_PAD = 4;
const MIN_TEXT_PX = 22;

/** Fill and text colours of one node. */
export interface Palette {
  fill(node: number): string;
  text(node: number): string;
}

/** Name-hash colours, cached per name; with a search, matches are violet and everything else faded. */
export function namePalette(tree: FrameTree, matched: Uint8Array | null): Palette {
  const fills: (string | undefined)[] = new Array(tree.names.length);
  const texts: (string | undefined)[] = new Array(tree.names.length);
  const matchFill = rgbCss(MATCH_COLOR);
  const matchText = textOn(MATCH_COLOR);
  const compute = (nm: number): void => {
    let c: Rgb = nameColor(tree.names[nm] ?? "");
    if (matched) c = dim(c, 0.55);
    fills[nm] = rgbCss(c);
    texts[nm] = matched ? "#4a525e" : textOn(c);
  };
  return {
    fill(node) {
      if (matched?.[node]) return matchFill;
      const nm = tree.nameId[node] as number;
      if (fills[nm] === undefined) compute(nm);
      return fills[nm] as string;
    },
    text(node) {
      if (matched?.[node]) return matchText;
      const nm = tree.nameId[node] as number;
      if (texts[nm] === undefined) compute(nm);
      return texts[nm] as string;
    },
  };
}

/** Per-node colours computed elsewhere (a diff), with an optional search outline. */
export function nodePalette(colors: readonly Rgb[]): Palette {
  const fills = colors.map(rgbCss);
  const texts = colors.map(textOn);
  return {
    fill: (node) => fills[node] ?? "#ddd",
    text: (node) => texts[node] ?? "#000",
  };
}

export interface DrawParams {
  ctx: CanvasRenderingContext2D;
  /** CSS pixels of the canvas. */
  width: number;
  height: number;
  dpr: number;
  layout: Layout;
  rows: number;
  orientation: Orientation;
  /** CSS pixels scrolled into the content (the canvas shows rows from there). */
  scrollTop: number;
  palette: Palette;
  hover: number;
  /** The frame the keyboard is on (-1: none): drawn with a thick ring, visible without a pointer. */
  focus?: number;
  /** Nodes drawn with a dark outline (search matches in a diff, where fill colour carries the change). */
  outline?: Uint8Array | null;
  /** The zoomed node's ancestors are drawn faded: they are context, not part of the zoomed view. */
  fadeAncestors: boolean;
}

const widthCache = new Map<string, number>();
let widthCacheFont = "";

function textWidth(ctx: CanvasRenderingContext2D, s: string): number {
  if (widthCacheFont !== ctx.font) {
    widthCache.clear();
    widthCacheFont = ctx.font;
  }
  let w = widthCache.get(s);
  if (w === undefined) {
    w = ctx.measureText(s).width;
    if (widthCache.size > 50_000) widthCache.clear();
    widthCache.set(s, w);
  }
  return w;
}

/** The longest prefix of `s` plus "…" that fits `avail` pixels, or "" when not even one character does. */
export function fitText(s: string, avail: number, measure: (t: string) => number): string {
  if (measure(s) <= avail) return s;
  const ell = "…";
  if (measure(`${s[0] ?? ""}${ell}`) > avail) return "";
  let lo = 1;
  let hi = s.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (measure(s.slice(0, mid) + ell) <= avail) lo = mid;
    else hi = mid - 1;
  }
  return s.slice(0, lo) + ell;
}

export function drawFlame(p: DrawParams): void {
  const { ctx, width, height, dpr, layout, rows, orientation, scrollTop, palette, hover } = p;
  const { tree } = layout;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, width, height);
  ctx.font = FONT;
  ctx.textBaseline = "middle";
  const measure = (t: string) => textWidth(ctx, t);
  const firstRow = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT));
  const lastRow = Math.min(rows - 1, Math.floor((scrollTop + height) / ROW_HEIGHT));
  const zoomDepth = tree.depth[layout.zoom] as number;
  let hoverRect: [number, number, number] | null = null;
  let focusRect: [number, number, number] | null = null;
  const focus = p.focus ?? -1;

  for (let row = firstRow; row <= lastRow; row++) {
    const depth = orientation === "icicle" ? row : rows - 1 - row;
    if (depth < 0 || depth > layout.maxDepth) continue;
    const y = rowOfDepth(depth, rows, orientation) * ROW_HEIGHT - scrollTop;
    const from = layout.rowStart[depth] as number;
    const to = layout.rowStart[depth + 1] as number;
    const faded = p.fadeAncestors && depth < zoomDepth;
    if (faded) ctx.globalAlpha = 0.55;
    for (let r = from; r < to; r++) {
      const k = layout.rowIndex[r] as number;
      const node = layout.node[k] as number;
      const x = (layout.x[k] as number) * width;
      const w = (layout.w[k] as number) * width;
      // Snap to device pixels and keep a 1px gap between neighbours once they are wide enough.
      const x0 = Math.round(x * dpr) / dpr;
      const x1 = Math.round((x + w) * dpr) / dpr;
      const gap = x1 - x0 >= 3 ? 1 : 0;
      const rw = Math.max(x1 - x0 - gap, 1 / dpr);
      ctx.fillStyle = palette.fill(node);
      ctx.fillRect(x0, y, rw, ROW_HEIGHT - 1);
      if (p.outline?.[node]) {
        ctx.strokeStyle = "#5b1b87";
        ctx.lineWidth = 1.5;
        ctx.strokeRect(x0 + 0.75, y + 0.75, Math.max(0, rw - 1.5), ROW_HEIGHT - 2.5);
      }
      if (node === hover) hoverRect = [x0, y, rw];
      if (node === focus) focusRect = [x0, y, rw];
      if (rw >= MIN_TEXT_PX) {
        const label = fitText(tree.names[tree.nameId[node] as number] ?? "", rw - 2 * TEXT_PAD, measure);
        if (label) {
          ctx.fillStyle = palette.text(node);
          ctx.fillText(label, x0 + TEXT_PAD, y + ROW_HEIGHT / 2);
        }
      }
    }
    if (faded) ctx.globalAlpha = 1;
  }
  if (hoverRect) {
    const [x0, y, rw] = hoverRect;
    ctx.strokeStyle = "#111827";
    ctx.lineWidth = 1.5;
    ctx.strokeRect(x0 + 0.75, y + 0.75, Math.max(0, rw - 1.5), ROW_HEIGHT - 2.5);
  }
  if (focusRect) {
    // Two rings (dark inside light) stay visible on every palette colour.
    const [x0, y, rw] = focusRect;
    ctx.lineWidth = 2;
    ctx.strokeStyle = "#ffffff";
    ctx.strokeRect(x0 + 1, y + 1, Math.max(0, rw - 2), ROW_HEIGHT - 3);
    ctx.strokeStyle = "#1d4ed8";
    ctx.strokeRect(x0 + 3, y + 3, Math.max(0, rw - 6), ROW_HEIGHT - 7);
  }
}
