// The canvas flame graph. The canvas is the size of the visible area (never the size of the whole graph),
// scaled for devicePixelRatio; it repaints only when something it shows changed: at once for a new layout
// or colours, in the next animation frame for hover and scroll (coalescing bursts of events). Tooltips are React text: frame names are
// never HTML.
import { type ReactNode, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { type FrameTree, hitTest, type Layout, layoutTree, type Orientation } from "@/lib/flamegraph";
import { drawFlame, type Palette, ROW_HEIGHT } from "../flame-draw";

export interface FlameGraphProps {
  tree: FrameTree;
  /** Node whose subtree fills the width (0 = everything). */
  zoom: number;
  orientation: Orientation;
  palette: Palette;
  /** Nodes outlined (search matches when the fill colour shows something else, as in a diff). */
  outline?: Uint8Array | null;
  onZoom?: (node: number) => void;
  /** Tooltip body for a hovered node. */
  tooltip: (node: number) => ReactNode;
  /** Largest height in CSS pixels before the graph scrolls vertically. */
  maxHeight?: number;
  label: string;
  /** Called after each paint with its duration in ms (the benchmark listens). */
  onPaint?: (ms: number, layout: Layout) => void;
  /** Reports the node under the pointer (null when none). */
  onHover?: (node: number | null) => void;
}

/** Tall enough to show most of a deep graph without scrolling, on any screen. */
export function graphHeight(): number {
  return Math.max(420, Math.round((typeof window === "undefined" ? 900 : window.innerHeight) * 0.75));
}

interface Hover {
  node: number;
  x: number;
  y: number;
}

export function FlameGraph(props: FlameGraphProps) {
  const { tree, zoom, orientation, palette, outline, onZoom, tooltip, maxHeight = 560, label } = props;
  const wrapRef = useRef<HTMLDivElement>(null);
  const scrollRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const [width, setWidth] = useState(0);
  const [hover, setHover] = useState<Hover | null>(null);

  useLayoutEffect(() => {
    const el = wrapRef.current;
    if (!el) return;
    setWidth(Math.floor(el.clientWidth));
    const ro = new ResizeObserver((entries) => {
      const w = entries[0]?.contentRect.width;
      if (w !== undefined) setWidth(Math.floor(w));
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const layout = useMemo(
    () => (width > 0 ? layoutTree(tree, { zoom, widthPx: width, minWidthPx: 0.5 }) : null),
    [tree, zoom, width],
  );
  const rows = (layout?.maxDepth ?? 0) + 1;
  const contentHeight = rows * ROW_HEIGHT;
  const viewHeight = Math.min(contentHeight, maxHeight);

  // Everything the painter needs, read at paint time so one scheduled frame always paints the latest state.
  const state = useRef({
    layout,
    rows,
    orientation,
    palette,
    outline,
    hover: -1,
    scrollTop: 0,
    viewHeight,
    width,
  });
  state.current.layout = layout;
  state.current.rows = rows;
  state.current.orientation = orientation;
  state.current.palette = palette;
  state.current.outline = outline ?? null;
  state.current.viewHeight = viewHeight;
  state.current.width = width;
  const onPaintRef = useRef(props.onPaint);
  onPaintRef.current = props.onPaint;

  const frame = useRef(0);
  const paint = useCallback(() => {
    frame.current = 0;
    const canvas = canvasRef.current;
    const s = state.current;
    if (!canvas || !s.layout || s.width <= 0) return;
    const t0 = performance.now();
    const dpr = window.devicePixelRatio || 1;
    const pw = Math.round(s.width * dpr);
    const ph = Math.round(s.viewHeight * dpr);
    if (canvas.width !== pw || canvas.height !== ph) {
      canvas.width = pw;
      canvas.height = ph;
    }
    const ctx = canvas.getContext("2d", { alpha: true });
    if (!ctx) return;
    drawFlame({
      ctx,
      width: s.width,
      height: s.viewHeight,
      dpr,
      layout: s.layout,
      rows: s.rows,
      orientation: s.orientation,
      scrollTop: s.scrollTop,
      palette: s.palette,
      hover: s.hover,
      outline: s.outline,
      fadeAncestors: s.layout.zoom !== 0,
    });
    onPaintRef.current?.(performance.now() - t0, s.layout);
  }, []);
  const schedule = useCallback(() => {
    if (!frame.current) frame.current = requestAnimationFrame(paint);
  }, [paint]);
  useEffect(() => () => cancelAnimationFrame(frame.current), []);

  // A flame graph grows upwards from its root: keep the root row in view when the graph scrolls.
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-anchor when the laid-out graph changes
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    el.scrollTop = orientation === "flame" ? el.scrollHeight : 0;
    state.current.scrollTop = el.scrollTop;
  }, [orientation, layout?.zoom, tree, contentHeight]);

  // What is shown changed (zoom, search, mode, size): paint now, before the browser renders this frame,
  // rather than one frame later. Hover and scroll, which can fire many times a frame, go through rAF.
  // biome-ignore lint/correctness/useExhaustiveDependencies: these are the inputs of a paint, read through `state`
  useLayoutEffect(() => {
    cancelAnimationFrame(frame.current);
    paint();
  }, [layout, orientation, palette, outline, viewHeight, width, paint]);

  const nodeAt = useCallback((clientX: number, clientY: number): { node: number; x: number; y: number } => {
    const canvas = canvasRef.current;
    const s = state.current;
    if (!canvas || !s.layout) return { node: -1, x: 0, y: 0 };
    const rect = canvas.getBoundingClientRect();
    const x = clientX - rect.left;
    const y = clientY - rect.top;
    const row = Math.floor((y + s.scrollTop) / ROW_HEIGHT);
    const depth = s.orientation === "icicle" ? row : s.rows - 1 - row;
    return { node: hitTest(s.layout, x / s.width, depth), x, y };
  }, []);

  const onHoverRef = useRef(props.onHover);
  onHoverRef.current = props.onHover;
  const onMove = (e: React.MouseEvent) => {
    const hit = nodeAt(e.clientX, e.clientY);
    const node = hit.node;
    if (node !== state.current.hover) {
      state.current.hover = node;
      onHoverRef.current?.(node >= 0 ? node : null);
      schedule();
    }
    setHover(node >= 0 ? hit : null);
  };
  const onLeave = () => {
    if (state.current.hover !== -1) {
      state.current.hover = -1;
      onHoverRef.current?.(null);
      schedule();
    }
    setHover(null);
  };
  const onClick = (e: React.MouseEvent) => {
    const { node } = nodeAt(e.clientX, e.clientY);
    if (node >= 0) onZoom?.(node);
  };

  return (
    <div className="flame" ref={wrapRef}>
      <div
        className="flame-scroll"
        ref={scrollRef}
        style={{ height: viewHeight }}
        onScroll={(e) => {
          state.current.scrollTop = e.currentTarget.scrollTop;
          schedule();
        }}
      >
        <div style={{ height: contentHeight, position: "relative" }}>
          <canvas
            ref={canvasRef}
            className="flame-canvas"
            role="img"
            aria-label={label}
            style={{ width: width || "100%", height: viewHeight, cursor: hover ? "pointer" : "default" }}
            onMouseMove={onMove}
            onMouseLeave={onLeave}
            onClick={onClick}
          />
        </div>
      </div>
      {hover ? <Tooltip x={hover.x} y={hover.y} width={width} body={tooltip(hover.node)} /> : null}
    </div>
  );
}

function Tooltip({ x, y, width, body }: { x: number; y: number; width: number; body: ReactNode }) {
  // Right of the pointer, or left of it near the right edge.
  const left = x + 14 + 340 > width ? Math.max(0, x - 14 - 340) : x + 14;
  return (
    <div className="flame-tooltip" role="tooltip" style={{ left, top: y + 14 }}>
      {body}
    </div>
  );
}
