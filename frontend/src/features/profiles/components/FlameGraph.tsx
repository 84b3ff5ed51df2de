// The canvas flame graph. The canvas is the size of the visible area (never the size of the whole graph),
// scaled for devicePixelRatio; it repaints only when something it shows changed: at once for a new layout
// or colours, in the next animation frame for hover and scroll (coalescing bursts of events). Tooltips are React text: frame names are
// never HTML. From the keyboard: the canvas is focusable, arrows move between frames, Enter zooms, Escape
// resets; the focused frame is drawn with a ring and announced through a live region.
import {
  type ReactNode,
  useCallback,
  useEffect,
  useId,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import {
  children,
  type FrameTree,
  hitTest,
  type Layout,
  layoutTree,
  type Orientation,
} from "@/lib/flamegraph";
import { drawFlame, type Palette, ROW_HEIGHT } from "../flame-draw";
import { describeFrame } from "./FrameTooltip";

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
  /** What the live region says about the frame the keyboard is on. */
  describe?: (node: number) => string;
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

/** Children of a node that are drawn (culled ones cannot be reached by the keyboard either). */
function shownChildren(layout: Layout, node: number): number[] {
  return [...children(layout.tree, node)].filter((c) => (layout.slotOf[c] as number) >= 0);
}

/**
 * Where an arrow key moves from `node`: towards the leaves (up in a flame graph, down in an icicle graph)
 * to the first drawn child, towards the root to the parent, left and right to the drawn siblings.
 * Returns -1 when there is nowhere to go.
 */
export function moveFocus(layout: Layout, orientation: Orientation, node: number, key: string): number {
  const { tree } = layout;
  const leafward = orientation === "flame" ? "ArrowUp" : "ArrowDown";
  const rootward = orientation === "flame" ? "ArrowDown" : "ArrowUp";
  if (key === leafward) return shownChildren(layout, node)[0] ?? -1;
  if (key === rootward) return node > 0 ? (tree.parent[node] as number) : -1;
  if ((key === "ArrowLeft" || key === "ArrowRight") && node > 0) {
    const siblings = shownChildren(layout, tree.parent[node] as number);
    const i = siblings.indexOf(node) + (key === "ArrowLeft" ? -1 : 1);
    return siblings[i] ?? -1;
  }
  return -1;
}

export function FlameGraph(props: FlameGraphProps) {
  const { tree, zoom, orientation, palette, outline, onZoom, tooltip, maxHeight = 560, label } = props;
  const liveId = useId();
  const wrapRef = useRef<HTMLDivElement>(null);
  const scrollRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const [width, setWidth] = useState(0);
  const [hover, setHover] = useState<Hover | null>(null);
  // The frame the keyboard is on; -1 until the canvas gets focus (then the zoomed frame).
  const [focusNode, setFocusNode] = useState(-1);

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
    focus: -1,
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
  // A frame culled or gone after a zoom or a new tree: the keyboard starts again from the zoomed frame.
  const focus =
    focusNode >= 0 && layout && focusNode < tree.size && (layout.slotOf[focusNode] as number) >= 0
      ? focusNode
      : -1;
  state.current.focus = focus;
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
      focus: s.focus,
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
  }, [layout, orientation, palette, outline, viewHeight, width, focus, paint]);

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

  /** Scrolls the graph so that the node's row is visible (deep graphs scroll vertically). */
  const reveal = (node: number) => {
    const el = scrollRef.current;
    const s = state.current;
    if (!el) return;
    const depth = tree.depth[node] as number;
    const top = (orientation === "icicle" ? depth : s.rows - 1 - depth) * ROW_HEIGHT;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + ROW_HEIGHT > el.scrollTop + s.viewHeight) el.scrollTop = top + ROW_HEIGHT - s.viewHeight;
  };
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.altKey || e.ctrlKey || e.metaKey || !layout) return;
    const current = focus >= 0 ? focus : layout.zoom;
    if (e.key === "Escape") {
      // Not prevented: the page's own Escape handler resets the zoom.
      setFocusNode(0);
      return;
    }
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      onZoom?.(current);
      return;
    }
    if (!e.key.startsWith("Arrow")) return;
    e.preventDefault();
    const next = moveFocus(layout, orientation, current, e.key);
    if (next >= 0) {
      setFocusNode(next);
      reveal(next);
    } else if (focus < 0) {
      setFocusNode(current);
    }
  };
  const describe = props.describe ?? ((node: number) => describeFrame(tree, node));

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
          {/* biome-ignore lint/a11y/noInteractiveElementToNoninteractiveRole: one widget that handles its own arrow keys; "application" tells screen readers to pass them through */}
          <canvas
            ref={canvasRef}
            className="flame-canvas"
            role="application"
            aria-roledescription="flame graph"
            aria-label={label}
            aria-describedby={`${liveId}-keys`}
            tabIndex={0}
            style={{ width: width || "100%", height: viewHeight, cursor: hover ? "pointer" : "default" }}
            onMouseMove={onMove}
            onMouseLeave={onLeave}
            onClick={onClick}
            onKeyDown={onKeyDown}
            onFocus={() => {
              if (focus < 0 && layout) setFocusNode(layout.zoom);
            }}
          />
        </div>
      </div>
      {hover ? <Tooltip x={hover.x} y={hover.y} width={width} body={tooltip(hover.node)} /> : null}
      <span id={`${liveId}-keys`} className="sr-only">
        Arrow keys move between frames: up and down to the caller or the callee, left and right to the
        neighbouring frames. Enter zooms into the frame, Escape resets the zoom.
      </span>
      <p className="flame-focus tabular" aria-live="polite" data-testid="flame-focus">
        {focus >= 0 ? describe(focus) : ""}
      </p>
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
