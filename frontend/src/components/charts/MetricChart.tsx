// A time chart for run metrics: seconds from run start on x (m:ss), one or two y axes, a legend that
// reads the values under the shared cursor (Grafana-style) and otherwise summarises the time shown
// (median and min–max of the zoomed range, or of the whole run), breaks where samples stop, and labelled
// time ranges (annotations). Every chart of a run gets the same x domain, so the charts line up.
// Dragging across the plot selects a time range (Grafana-style) and double-click resets it; the page
// owns the range (in the URL) and hands every chart the same domain.
import "./charts.css";
import { type KeyboardEvent, type MouseEvent, memo, useEffect, useMemo, useRef, useState } from "react";
import { CartesianGrid, Line, LineChart, ReferenceArea, XAxis, YAxis } from "recharts";
import { formatBytes, formatCompact } from "@/lib/format";
import { formatClock, timeTicks } from "@/lib/time-axis";
import { rangeFrom, type TimeRange } from "@/lib/time-range";
import { type CursorStore, useCursorStore, useCursorTime } from "./cursor";
import { seriesColor } from "./palette";
import {
  medianStep,
  nearestIndex,
  pixelToTime,
  singleSpan,
  timeToPixel,
  valueAt,
  type WindowStats,
  windowStats,
  withGaps,
  type XY,
} from "./series-math";
import type { TimeAnnotation } from "./TimeSeriesChart";

export interface MetricSeries {
  id: string;
  label: string;
  /** Seconds from run start, ascending. */
  t: readonly number[];
  v: readonly number[];
  /** "right" puts the line on a second axis (e.g. context switches beside interrupts). */
  axis?: "left" | "right";
  dashed?: boolean;
  color?: string;
}

type YBound = number | "auto" | "dataMin" | "dataMax";

interface Props {
  series: MetricSeries[];
  /** The x range in seconds, shared by every chart of a run. */
  domain: [number, number];
  unit?: string;
  rightUnit?: string;
  /** Fixed y range, e.g. [0, 100] for CPU percentages; default starts at 0 for non-negative data. */
  yDomain?: [YBound, YBound];
  height?: number;
  annotations?: TimeAnnotation[];
  ariaLabel: string;
  testId?: string;
  /** Called with the range dragged across the plot; without it, dragging does nothing. */
  onSelectRange?: (range: TimeRange) => void;
  /** Double-click: back to the whole run. */
  onResetRange?: () => void;
  /** The domain is a range the user zoomed to (the legend then names it), not the whole run. */
  zoomed?: boolean;
  /** A run still recording: without a cursor or zoom the legend reads the latest values. */
  live?: boolean;
}

const NO_ANNOTATIONS: TimeAnnotation[] = [];
const MARGIN = { top: 8, right: 8, bottom: 0, left: 0 };
const Y_AXIS_WIDTH = 46;
const X_AXIS_HEIGHT = 22;

function useWidth() {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    setWidth(el.clientWidth);
    if (typeof ResizeObserver === "undefined") return;
    const ro = new ResizeObserver((entries) => {
      const w = entries[0]?.contentRect.width;
      if (w !== undefined) setWidth(Math.floor(w));
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return [ref, width] as const;
}

// Byte amounts (netqtop's BPS and avg_size) read in binary prefixes, as the tool prints them:
// its "350.16M" is 350.16 MiB/s, which SI prefixes would show as 367M.
const isBytes = (unit: string | undefined) => unit === "B/s" || unit === "B";

export function withUnit(v: number | null, unit: string | undefined): string {
  if (v === null) return "—";
  if (!unit) return formatCompact(v);
  if (isBytes(unit)) return unit === "B/s" ? `${formatBytes(v)}/s` : formatBytes(v);
  return unit === "%" ? `${formatCompact(v)}%` : `${formatCompact(v)} ${unit}`;
}

const tickFor = (unit: string | undefined) => (v: number) =>
  isBytes(unit) ? formatBytes(v) : formatCompact(v);

export function MetricChart({
  series,
  domain,
  unit,
  rightUnit,
  yDomain,
  height = 180,
  annotations = NO_ANNOTATIONS,
  ariaLabel,
  testId,
  onSelectRange,
  onResetRange,
  zoomed = false,
  live = false,
}: Props) {
  const store = useCursorStore();
  const cursor = useCursorTime(store);
  const [boxRef, width] = useWidth();
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  const colored = useMemo(() => series.map((s, i) => ({ ...s, color: s.color ?? seriesColor(i) })), [series]);
  const visible = useMemo(() => colored.filter((s) => !hidden.has(s.id)), [colored, hidden]);
  const hasRight = visible.some((s) => s.axis === "right");
  const plotLeft = MARGIN.left + Y_AXIS_WIDTH;
  const plotWidth = Math.max(0, width - plotLeft - MARGIN.right - (hasRight ? Y_AXIS_WIDTH : 0));
  const plotHeight = height - MARGIN.top - MARGIN.bottom - X_AXIS_HEIGHT;
  // Snap the cursor to real samples (of the densest series), so values read exactly, not interpolated.
  const snapTimes = useMemo(() => {
    let best: readonly number[] = [];
    for (const s of colored) if (s.t.length > best.length) best = s.t;
    return best;
  }, [colored]);
  const step = useMemo(() => medianStep(snapTimes) ?? 1, [snapTimes]);
  const points = colored.reduce((n, s) => n + s.t.length, 0);

  const snap = (t: number) => {
    const i = nearestIndex(snapTimes, t);
    const at = i >= 0 ? (snapTimes[i] as number) : t;
    return Math.abs(at - t) <= step ? at : t;
  };
  // The drag in progress, in pixels from the plot box's left edge (the anchor and the current end).
  const [drag, setDrag] = useState<{ from: number; to: number } | null>(null);
  const clampX = (x: number) => Math.min(plotLeft + plotWidth, Math.max(plotLeft, x));
  const boxX = (e: MouseEvent<HTMLDivElement>) => e.clientX - e.currentTarget.getBoundingClientRect().left;
  const onMouseDown = (e: MouseEvent<HTMLDivElement>) => {
    if (!onSelectRange || e.button !== 0) return;
    const x = boxX(e);
    if (x < plotLeft - 4 || x > plotLeft + plotWidth + 4) return;
    e.preventDefault(); // no text selection while dragging
    setDrag({ from: clampX(x), to: clampX(x) });
  };
  const onMouseUp = () => {
    if (!drag || !onSelectRange) return;
    setDrag(null);
    const r = rangeFrom(
      pixelToTime(drag.from, plotLeft, plotWidth, domain),
      pixelToTime(drag.to, plotLeft, plotWidth, domain),
    );
    // A few pixels is a click (it moves the cursor), not a zoom.
    if (r && Math.abs(drag.to - drag.from) >= 4) onSelectRange(r);
  };
  const onMouseMove = (e: MouseEvent<HTMLDivElement>) => {
    const rect = e.currentTarget.getBoundingClientRect();
    const x = e.clientX - rect.left;
    const y = e.clientY - rect.top;
    if (drag) setDrag({ from: drag.from, to: clampX(x) });
    if (x < plotLeft - 4 || x > plotLeft + plotWidth + 4 || y > MARGIN.top + plotHeight) {
      store.set(null);
      return;
    }
    store.set(snap(pixelToTime(x, plotLeft, plotWidth, domain)));
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const cur = store.get();
    const by = (n: number) => snap(Math.min(domain[1], Math.max(domain[0], (cur ?? domain[0]) + n * step)));
    const moves: Record<string, () => number | null> = {
      ArrowRight: () => by(e.shiftKey ? 10 : 1),
      ArrowLeft: () => by(e.shiftKey ? -10 : -1),
      Home: () => snap(domain[0]),
      End: () => snap(domain[1]),
      Escape: () => null,
    };
    const move = moves[e.key];
    if (!move) return;
    e.preventDefault();
    store.set(move());
  };

  return (
    <figure className="mchart" aria-label={ariaLabel} data-testid={testId} data-points={points}>
      {/* The plot is a slider over time: arrow keys move the cursor shared by every chart of the run. */}
      <div
        ref={boxRef}
        className="mchart-plot"
        style={{ height }}
        onMouseMove={onMouseMove}
        onMouseDown={onMouseDown}
        onMouseUp={onMouseUp}
        onDoubleClick={onResetRange}
        onMouseLeave={() => {
          store.set(null);
          setDrag(null);
        }}
        onKeyDown={onKeyDown}
        onBlur={() => store.set(null)}
        tabIndex={0}
        role="slider"
        aria-label={`${ariaLabel}: time cursor`}
        aria-valuemin={domain[0]}
        aria-valuemax={domain[1]}
        aria-valuenow={cursor ?? domain[0]}
        aria-valuetext={
          cursor === null ? "no time selected; arrow keys move the cursor" : `at ${formatClock(cursor)}`
        }
      >
        {width > 0 ? (
          <Plot
            series={visible}
            domain={domain}
            width={width}
            height={height}
            hasRight={hasRight}
            yDomain={yDomain}
            annotations={annotations}
            unit={unit}
            rightUnit={rightUnit}
          />
        ) : null}
        <CursorLine store={store} left={plotLeft} width={plotWidth} height={plotHeight} domain={domain} />
        {drag ? (
          <div
            className="mchart-selection"
            data-testid="chart-selection"
            style={{
              left: Math.min(drag.from, drag.to),
              width: Math.abs(drag.to - drag.from),
              top: MARGIN.top,
              height: plotHeight,
            }}
            aria-hidden="true"
          />
        ) : null}
      </div>
      <ChartLegend
        store={store}
        series={colored}
        hidden={hidden}
        domain={domain}
        zoomed={zoomed}
        latest={live && !zoomed}
        unit={unit}
        rightUnit={rightUnit}
        onToggle={(id) =>
          setHidden((h) => {
            const next = new Set(h);
            if (next.has(id)) next.delete(id);
            else next.add(id);
            return next;
          })
        }
      />
    </figure>
  );
}

interface PlotProps {
  series: (MetricSeries & { color: string })[];
  domain: [number, number];
  width: number;
  height: number;
  hasRight: boolean;
  yDomain: [YBound, YBound] | undefined;
  annotations: TimeAnnotation[];
  unit: string | undefined;
  rightUnit: string | undefined;
}

// The recharts part: re-renders only when data, size or visibility change, never on cursor moves.
const Plot = memo(function Plot({
  series,
  domain,
  width,
  height,
  hasRight,
  yDomain,
  annotations,
  unit,
  rightUnit,
}: PlotProps) {
  const lines = useMemo(() => {
    const step = medianStep(
      series.reduce<readonly number[]>((a, s) => (s.t.length > a.length ? s.t : a), []),
    );
    return series.map((s) => ({
      s,
      data: (singleSpan(s.t, s.v, step, domain) ?? withGaps(s.t, s.v)) as XY[],
    }));
  }, [series, domain]);
  const nonNegative = (axis: "left" | "right") =>
    series.filter((s) => (s.axis ?? "left") === axis).every((s) => s.v.every((v) => v >= 0));
  const yFor = (axis: "left" | "right"): [YBound, YBound] =>
    axis === "left" && yDomain ? yDomain : nonNegative(axis) ? [0, "auto"] : ["auto", "auto"];
  const ticks = timeTicks(domain[0], domain[1], Math.max(2, Math.floor(width / 90)));
  return (
    <LineChart width={width} height={height} margin={MARGIN}>
      <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" vertical={false} />
      <XAxis
        dataKey="t"
        type="number"
        domain={domain}
        ticks={ticks}
        allowDataOverflow
        tickFormatter={(v: number) => formatClock(v)}
        stroke="var(--text-faint)"
        fontSize={11}
        height={X_AXIS_HEIGHT}
        tickSize={4}
      />
      <YAxis
        yAxisId="left"
        width={Y_AXIS_WIDTH}
        domain={yFor("left")}
        tickFormatter={tickFor(unit)}
        stroke="var(--text-faint)"
        fontSize={11}
        tickSize={3}
        allowDecimals={false}
      />
      {hasRight ? (
        <YAxis
          yAxisId="right"
          orientation="right"
          width={Y_AXIS_WIDTH}
          domain={yFor("right")}
          tickFormatter={tickFor(rightUnit)}
          stroke="var(--text-faint)"
          fontSize={11}
          tickSize={3}
          allowDecimals={false}
        />
      ) : null}
      {annotations.map((a) => (
        <ReferenceArea
          key={`${a.start}-${a.end}-${a.label}`}
          yAxisId="left"
          x1={a.start}
          x2={a.end}
          fill="var(--warn-soft)"
          fillOpacity={0.8}
          label={{ value: a.label, fontSize: 11, position: "insideTopLeft", fill: "var(--warn)" }}
        />
      ))}
      {lines.map(({ s, data }) => (
        <Line
          key={s.id}
          data={data}
          dataKey="v"
          name={s.label}
          yAxisId={s.axis ?? "left"}
          type="linear"
          stroke={s.color}
          strokeWidth={1.5}
          strokeDasharray={s.dashed ? "4 3" : undefined}
          dot={false}
          activeDot={false}
          isAnimationActive={false}
          connectNulls={false}
        />
      ))}
    </LineChart>
  );
});

function CursorLine({
  store,
  left,
  width,
  height,
  domain,
}: {
  store: CursorStore;
  left: number;
  width: number;
  height: number;
  domain: [number, number];
}) {
  const t = useCursorTime(store);
  const x = t === null ? null : timeToPixel(t, left, width, domain);
  if (x === null || t === null) return null;
  return (
    <div className="mchart-cursor" style={{ left: x, top: MARGIN.top, height }} aria-hidden="true">
      <span className="mchart-cursor-label">{formatClock(t)}</span>
    </div>
  );
}

/** "12.0–24.5 s": a zoomed range to a tenth of a second, as the URL keeps it. */
export function rangeLabel(domain: readonly [number, number]): string {
  return `${domain[0].toFixed(1)}–${domain[1].toFixed(1)} s`;
}

/** "5.1% (2–12%)": a legend's summary of a series over the time shown. */
export function statsText(st: WindowStats | null, unit: string | undefined): string {
  if (!st) return "—";
  const lo = isBytes(unit) ? formatBytes(st.min) : formatCompact(st.min);
  return `${withUnit(st.median, unit)} (${lo}–${withUnit(st.max, unit)})`;
}

function ChartLegend({
  store,
  series,
  hidden,
  domain,
  zoomed,
  latest,
  unit,
  rightUnit,
  onToggle,
}: {
  store: CursorStore;
  series: (MetricSeries & { color: string })[];
  hidden: ReadonlySet<string>;
  domain: [number, number];
  zoomed: boolean;
  latest: boolean;
  unit: string | undefined;
  rightUnit: string | undefined;
  onToggle: (id: string) => void;
}) {
  const t = useCursorTime(store);
  // Computed once per data or zoom change, not on every cursor move.
  const stats = useMemo(
    () => (latest ? null : new Map(series.map((s) => [s.id, windowStats(s.t, s.v, domain)]))),
    [series, domain, latest],
  );
  const heading =
    t !== null
      ? `at ${formatClock(t)}`
      : latest
        ? "latest"
        : `${zoomed ? rangeLabel(domain) : "whole run"} · median (min–max)`;
  return (
    <figcaption className="mchart-legend">
      <span
        className="mchart-legend-at faint"
        data-testid="legend-window"
        title={
          stats && t === null
            ? "Median of the samples shown (min–max); hover for the value at a time"
            : undefined
        }
      >
        {heading}
      </span>
      {series.map((s) => {
        const u = s.axis === "right" ? rightUnit : unit;
        const text =
          t !== null
            ? withUnit(valueAt(s.t, s.v, t), u)
            : stats
              ? statsText(stats.get(s.id) ?? null, u)
              : withUnit(lastValue(s.v), u);
        const off = hidden.has(s.id);
        return (
          <button
            key={s.id}
            type="button"
            className="mchart-legend-item"
            aria-pressed={!off}
            title={off ? `Show ${s.label}` : `Hide ${s.label}`}
            onClick={() => onToggle(s.id)}
          >
            <span
              className="mchart-swatch"
              style={{ background: off || s.dashed ? "transparent" : s.color, borderColor: s.color }}
              data-dashed={s.dashed ? "true" : undefined}
              aria-hidden="true"
            />
            <span className="mchart-legend-label">{s.label}</span>
            {/* A real space, so the button reads "sy 85%" to assistive technology. */}{" "}
            <span className="mchart-legend-value">{text}</span>
          </button>
        );
      })}
    </figcaption>
  );
}

function lastValue(v: readonly number[]): number | null {
  for (let i = v.length - 1; i >= 0; i--) {
    const x = v[i];
    if (typeof x === "number" && Number.isFinite(x)) return x;
  }
  return null;
}
