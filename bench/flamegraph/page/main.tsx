// Benchmark page: renders one 50,000-frame profile with our canvas flame graph (the app's own component)
// and with d3-flame-graph 5, and times first paint, hover and zoom the same way for both. Driven by
// run.mjs through window.bench; pointer events come from the browser's input pipeline (Playwright mouse).
import "@/features/profiles/profiles.css";
import "d3-flame-graph/dist/d3-flamegraph.css";
import { select } from "d3";
import flamegraph from "d3-flame-graph";
import { useMemo, useState } from "react";
import { flushSync } from "react-dom";
import { createRoot, type Root } from "react-dom/client";
import { FlameGraph } from "@/features/profiles/components/FlameGraph";
import { FrameTooltip } from "@/features/profiles/components/FrameTooltip";
import { namePalette, ROW_HEIGHT } from "@/features/profiles/flame-draw";
import { type FrameTree, fromApiTree, type Layout } from "@/lib/flamegraph";
import { type D3Node, generateProfile } from "./generate";

const WIDTH = 1280;
const gen = generateProfile(50_000, 42);

interface Timing {
  /**
   * Input event to the new picture being ready for the compositor: our canvas repainted (including, for
   * hover, the wait for the animation frame that coalesces pointer moves), or d3's SVG updated and laid
   * out.
   */
  redraw: number;
}

// ---------- timing of one input event ----------

let pending: { t0: number; resolve: (t: Timing) => void; done: boolean } | null = null;
let lastTiming: Promise<Timing> | null = null;

function armTiming(): void {
  const t0 = performance.now();
  let resolve: (t: Timing) => void = () => {};
  lastTiming = new Promise<Timing>((r) => {
    resolve = r;
  });
  pending = { t0, resolve, done: false };
}

function redrawn(): void {
  const p = pending;
  if (!p || p.done) return;
  p.done = true;
  p.resolve({ redraw: performance.now() - p.t0 });
}

// ---------- ours ----------

let oursRoot: Root | null = null;
let oursLayout: Layout | null = null;
let onOursPaint: ((ms: number, layout: Layout) => void) | null = null;
let setOursZoom: (z: number) => void = () => {};

function Harness({ tree }: { tree: FrameTree }) {
  const [zoom, setZoom] = useState(0);
  setOursZoom = setZoom;
  const palette = useMemo(() => namePalette(tree, null), [tree]);
  return (
    <FlameGraph
      tree={tree}
      zoom={zoom}
      orientation="flame"
      palette={palette}
      onZoom={setZoom}
      maxHeight={(tree.maxDepth + 2) * ROW_HEIGHT}
      label="benchmark"
      tooltip={(node) => <FrameTooltip tree={tree} node={node} />}
      onPaint={(ms, layout) => {
        oursLayout = layout;
        onOursPaint?.(ms, layout);
      }}
    />
  );
}

const oursEl = document.getElementById("ours") as HTMLElement;
for (const type of ["mousemove", "click"] as const) {
  oursEl.addEventListener(type, () => armTiming(), { capture: true });
}

async function mountOurs() {
  oursRoot?.unmount();
  oursEl.innerHTML = "";
  await new Promise((r) => setTimeout(r, 50));
  const t0 = performance.now();
  const tree = fromApiTree(gen.json); // what the app does with the server's JSON
  const built = performance.now() - t0;
  const painted = new Promise<{ at: number; paint: number; count: number }>((resolve) => {
    onOursPaint = (ms, layout) => {
      onOursPaint = null;
      resolve({ at: performance.now(), paint: ms, count: layout.count });
    };
  });
  oursRoot = createRoot(oursEl);
  flushSync(() => oursRoot?.render(<Harness tree={tree} />));
  const p = await painted;
  await new Promise((r) => setTimeout(r, 0));
  const shown = performance.now();
  onOursPaint = () => redrawn();
  return { buildMs: built, firstPaintMs: p.at - t0, presentedMs: shown - t0, paintMs: p.paint, framesDrawn: p.count };
}

function oursTargets(n: number, minPx: number) {
  const l = oursLayout;
  const canvas = oursEl.querySelector("canvas");
  if (!l || !canvas) return [];
  const rect = canvas.getBoundingClientRect();
  const rows = l.maxDepth + 1;
  const out: { x: number; y: number }[] = [];
  const candidates: number[] = [];
  for (let k = 0; k < l.count; k++) if ((l.w[k] as number) * WIDTH >= minPx && (l.node[k] as number) !== 0) candidates.push(k);
  // Deterministic spread over the candidates.
  for (let j = 0; j < n && candidates.length; j++) {
    const k = candidates[Math.floor(((j * 7919) % candidates.length) + 0)] as number;
    const row = rows - 1 - (l.depth[k] as number);
    out.push({
      x: rect.left + ((l.x[k] as number) + (l.w[k] as number) / 2) * rect.width,
      y: rect.top + row * ROW_HEIGHT + ROW_HEIGHT / 2,
    });
  }
  return out;
}

async function resetOurs() {
  const done = new Promise<void>((r) => {
    const prev = onOursPaint;
    onOursPaint = (ms, layout) => {
      onOursPaint = prev;
      prev?.(ms, layout);
      r();
    };
  });
  flushSync(() => setOursZoom(0));
  await Promise.race([done, new Promise((r) => setTimeout(r, 100))]);
}

// ---------- d3-flame-graph ----------

const d3El = document.getElementById("d3") as HTMLElement;
let d3Chart: ReturnType<typeof flamegraph> | null = null;
for (const type of ["mousemove", "click"] as const) {
  d3El.addEventListener(type, () => armTiming(), { capture: true });
}
// Bubble phase on the document: after d3's own handlers ran (and queued their transition timers).
document.addEventListener("click", (e) => {
  if (!d3El.contains(e.target as Node)) return;
  // d3's zero-length transitions run in the next animation frame's timer callback, before this one.
  requestAnimationFrame(() => {
    void d3El.getBoundingClientRect(); // style and layout of the updated SVG
    redrawn();
  });
});
document.addEventListener("mousemove", (e) => {
  if (!d3El.contains(e.target as Node)) return;
  void getComputedStyle(e.target as Element).fill; // :hover style
  void d3El.getBoundingClientRect();
  redrawn();
});

async function mountD3() {
  d3El.innerHTML = "";
  const data = structuredClone(gen.d3) as D3Node;
  await new Promise((r) => setTimeout(r, 50));
  const t0 = performance.now();
  d3Chart = flamegraph().width(WIDTH).cellHeight(ROW_HEIGHT).transitionDuration(0).minFrameSize(0);
  select(d3El).datum(data).call(d3Chart);
  void d3El.offsetHeight; // style and layout of the new SVG
  const built = performance.now() - t0;
  await new Promise<void>((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const shown = performance.now();
  return { buildMs: built, firstPaintMs: built, presentedMs: shown - t0, elements: d3El.querySelectorAll("g").length };
}

function d3Targets(n: number, minPx: number) {
  const gs = [...d3El.querySelectorAll<SVGGElement>("g.frame")].filter((g) => {
    const r = g.getBoundingClientRect();
    return r.width >= minPx && r.height > 0;
  });
  const out: { x: number; y: number }[] = [];
  for (let j = 0; j < n && gs.length; j++) {
    const r = (gs[(j * 7919) % gs.length] as SVGGElement).getBoundingClientRect();
    out.push({ x: r.left + r.width / 2, y: r.top + r.height / 2 });
  }
  return out;
}

async function resetD3() {
  d3Chart?.resetZoom();
  await new Promise<void>((r) => requestAnimationFrame(() => setTimeout(r, 0)));
}

function unmountAll() {
  oursRoot?.unmount();
  oursRoot = null;
  oursEl.innerHTML = "";
  d3El.innerHTML = "";
}

declare global {
  interface Window {
    bench: unknown;
  }
}

window.bench = {
  info: { frames: gen.frames, maxDepth: gen.maxDepth, width: WIDTH, dpr: window.devicePixelRatio },
  mountOurs,
  oursTargets,
  resetOurs,
  mountD3,
  d3Targets,
  resetD3,
  unmountAll,
  nextTiming: () => lastTiming,
  ready: true,
};
