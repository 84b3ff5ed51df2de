// Overlay of many runs on one time axis (seconds from each run's start), for comparisons: per-series
// colour and dash (experiment families), time-range notes as bands, and a cursor shared by value
// with every chart of the same syncId, so hovering t+42s shows t+42s everywhere. Only the chart under
// the pointer (or focused) opens its tooltip, one row per experiment (median of its runs, their range);
// `showRuns` lists every run instead. Dragging across a chart selects a time range (the page keeps it
// in the URL and zooms every overlay); double-click resets.
import { useId, useMemo, useState, useSyncExternalStore } from "react";
import {
  CartesianGrid,
  Line,
  LineChart,
  ReferenceArea,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  type TooltipContentProps,
  XAxis,
  YAxis,
} from "recharts";
import type { NameType, ValueType } from "recharts/types/component/DefaultTooltipContent";
import { formatCompact, formatDuration } from "@/lib/format";
import { rangeFrom, type TimeRange } from "@/lib/time-range";
import { groupValues, prepareLines, valuesAt } from "./overlay-math";

export interface OverlaySeries {
  id: string;
  /** Shown in the tooltip's per-run rows: "default · run 2". */
  label: string;
  /** The experiment: the tooltip summarises the runs of a group in one row. */
  group?: string;
  color: string;
  /** SVG stroke-dasharray; "" for a solid line. */
  dash?: string;
  points: { t: number; v: number }[];
}

export interface OverlayBand {
  id: string | number;
  start: number;
  /** Equal to start (or null) for a point in time: drawn as a line. */
  end: number | null;
  label: string;
}

interface Props {
  series: OverlaySeries[];
  bands?: OverlayBand[];
  unit?: string;
  height?: number;
  syncId?: string;
  ariaLabel: string;
  /** Target number of x positions after aligning runs to a common grid. */
  resolution?: number;
  /** The time range shown (seconds from run start); the whole data when absent. */
  domain?: [number, number] | null;
  onSelectRange?: (range: TimeRange) => void;
  onResetRange?: () => void;
  /** Tooltip rows per run instead of per experiment. */
  showRuns?: boolean;
}

/** The x value under the pointer, as recharts reports it for a numeric axis. */
function labelTime(state: { activeLabel?: unknown } | null | undefined): number | null {
  const v = state?.activeLabel;
  const n = typeof v === "number" ? v : typeof v === "string" ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : null;
}

type Row = { t: number } & Record<string, number>;

/**
 * Puts every series on one grid of time buckets (runs sample at slightly different offsets, and
 * downsampled ones at fractional seconds), so the chart has at most ~`resolution` rows whatever
 * the number of runs, and the tooltip finds a value for each run at the same t.
 */
export function alignSeries(series: OverlaySeries[], resolution = 600): Row[] {
  const step = alignStep(series, resolution);
  if (step === null) return [];
  const rows = new Map<number, Row>();
  for (const s of series) {
    const sums = new Map<number, [number, number]>();
    for (const p of s.points) {
      const b = Math.round(p.t / step) * step;
      const acc = sums.get(b) ?? [0, 0];
      acc[0] += p.v;
      acc[1] += 1;
      sums.set(b, acc);
    }
    for (const [b, [sum, n]] of sums) {
      let row = rows.get(b);
      if (!row) {
        row = { t: b } as Row;
        rows.set(b, row);
      }
      row[s.id] = sum / n;
    }
  }
  return [...rows.values()].sort((a, b) => a.t - b.t);
}

/** The width of alignSeries' time buckets (whole seconds), or null without points. */
export function alignStep(series: OverlaySeries[], resolution = 600): number | null {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const s of series) {
    for (const p of s.points) {
      if (p.t < lo) lo = p.t;
      if (p.t > hi) hi = p.t;
    }
  }
  if (!Number.isFinite(lo)) return null;
  return Math.max(1, Math.ceil((hi - lo) / Math.max(1, resolution)));
}

// The overlay the pointer (or focus) is on: the only one whose tooltip opens. One for the page, so a
// tap on a phone (which leaves no hover to end) moves it to the chart tapped instead of adding one.
let tooltipOwner: string | null = null;
const ownerListeners = new Set<() => void>();
function setTooltipOwner(id: string | null, onlyIf?: string) {
  if (onlyIf !== undefined && tooltipOwner !== onlyIf) return;
  if (tooltipOwner === id) return;
  tooltipOwner = id;
  for (const l of ownerListeners) l();
}
function subscribeOwner(listener: () => void) {
  ownerListeners.add(listener);
  return () => ownerListeners.delete(listener);
}
const getOwner = () => tooltipOwner;

function truncate(text: string, max = 32): string {
  const line = text.split("\n")[0]?.trim() ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function OverlayChart({
  series,
  bands = [],
  unit = "",
  height = 200,
  syncId,
  ariaLabel,
  resolution,
  domain,
  onSelectRange,
  onResetRange,
  showRuns = false,
}: Props) {
  const data = useMemo(() => alignSeries(series, resolution), [series, resolution]);
  const grid = useMemo(() => alignStep(series, resolution) ?? 1, [series, resolution]);
  const lines = useMemo(() => prepareLines(series), [series]);
  const [drag, setDrag] = useState<{ from: number; to: number } | null>(null);
  // Charts of one syncId all turn "active" together (that is what moves their cursors); only the one
  // under the pointer or focus shows its tooltip, so hovering one chart no longer opens one on each.
  const chartId = useId();
  const owns = useSyncExternalStore(subscribeOwner, getOwner, getOwner) === chartId;
  const num = (v: number) => formatCompact(v);
  const fmt = (v: number) => `${num(v)}${unit && unit !== "%" ? ` ${unit}` : unit}`;

  const content = ({ active, label }: TooltipContentProps<ValueType, NameType>) => {
    if (!active || !owns || typeof label !== "number") return null;
    const values = valuesAt(lines, label, grid);
    if (!values.length) return null;
    const groups = showRuns ? [] : groupValues(values);
    return (
      <div className="overlay-tooltip" data-testid="overlay-tooltip">
        <div className="overlay-tooltip-t">t+{formatDuration(label)}</div>
        {showRuns
          ? values.map((v) => (
              <div key={v.id} className="overlay-tooltip-row" data-testid="overlay-tooltip-row">
                <span className="overlay-swatch" style={{ background: v.color }} aria-hidden="true" />
                <span>{v.label}</span>
                <span className="num">{fmt(v.value)}</span>
                <span />
              </div>
            ))
          : groups.map((g) => (
              <div key={g.group} className="overlay-tooltip-row" data-testid="overlay-tooltip-row">
                <span className="overlay-swatch" style={{ background: g.color }} aria-hidden="true" />
                <span>
                  {g.group}
                  {g.n > 1 ? <span className="faint"> · {g.n} runs</span> : null}
                </span>
                <span className="num">{fmt(g.median)}</span>
                <span className="num faint">{g.n > 1 ? `${num(g.min)}–${num(g.max)}` : ""}</span>
              </div>
            ))}
        {!showRuns && groups.some((g) => g.n > 1) ? (
          <div className="overlay-tooltip-foot faint">median of the runs (min–max)</div>
        ) : null}
      </div>
    );
  };

  return (
    <figure
      style={{ margin: 0 }}
      aria-label={ariaLabel}
      onDoubleClick={onResetRange}
      onPointerEnter={() => setTooltipOwner(chartId)}
      onPointerLeave={(e) => {
        if (e.pointerType !== "touch") setTooltipOwner(null, chartId);
      }}
      onFocus={() => setTooltipOwner(chartId)}
      onBlur={() => setTooltipOwner(null, chartId)}
    >
      <ResponsiveContainer width="100%" height={height}>
        <LineChart
          data={data}
          syncId={syncId}
          syncMethod="value"
          margin={{ top: 14, right: 12, bottom: 0, left: 0 }}
          onMouseDown={(state) => {
            const t = onSelectRange ? labelTime(state) : null;
            if (t !== null) setDrag({ from: t, to: t });
          }}
          onMouseMove={(state) => {
            const t = drag ? labelTime(state) : null;
            if (drag && t !== null && t !== drag.to) setDrag({ from: drag.from, to: t });
          }}
          onMouseUp={() => {
            if (!drag) return;
            setDrag(null);
            const r = rangeFrom(drag.from, drag.to);
            if (r && onSelectRange) onSelectRange(r);
          }}
          onMouseLeave={() => setDrag(null)}
        >
          <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" vertical={false} />
          <XAxis
            dataKey="t"
            type="number"
            domain={domain ?? ["dataMin", "dataMax"]}
            allowDataOverflow={!!domain}
            tickFormatter={(v: number) => formatDuration(v)}
            stroke="var(--text-faint)"
            fontSize={11}
          />
          <YAxis
            tickFormatter={(v: number) => formatCompact(v)}
            stroke="var(--text-faint)"
            fontSize={11}
            width={44}
          />
          <Tooltip content={content} isAnimationActive={false} />
          {bands.map((b) =>
            b.end === null || b.end <= b.start ? (
              <ReferenceLine
                key={b.id}
                x={b.start}
                stroke="var(--warn)"
                strokeDasharray="4 2"
                label={{
                  value: truncate(b.label),
                  fontSize: 10,
                  position: "insideTopLeft",
                  fill: "var(--warn)",
                }}
              />
            ) : (
              <ReferenceArea
                key={b.id}
                x1={b.start}
                x2={b.end}
                fill="var(--warn)"
                fillOpacity={0.12}
                stroke="var(--warn)"
                strokeOpacity={0.4}
                label={{
                  value: truncate(b.label),
                  fontSize: 10,
                  position: "insideTopLeft",
                  fill: "var(--warn)",
                }}
              />
            ),
          )}
          {drag && drag.to !== drag.from ? (
            <ReferenceArea
              x1={Math.min(drag.from, drag.to)}
              x2={Math.max(drag.from, drag.to)}
              fill="var(--accent)"
              fillOpacity={0.15}
            />
          ) : null}
          {series.map((s) => (
            <Line
              key={s.id}
              dataKey={s.id}
              name={s.label}
              stroke={s.color}
              strokeDasharray={s.dash || undefined}
              dot={false}
              strokeWidth={1.5}
              isAnimationActive={false}
              connectNulls
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}
