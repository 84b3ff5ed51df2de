// One metric across a project's experiments: every run as a dot (hollow red for invalid runs, amber
// for flagged), the median per experiment as a line, change points as dashed vertical lines between
// experiments, decisions and notes as ticks on the axis. Clicking a run opens it; clicking a median
// opens the comparison with the experiment before.
import "./charts.css";
import { memo } from "react";
import {
  CartesianGrid,
  ComposedChart,
  Line,
  ReferenceDot,
  ReferenceLine,
  ResponsiveContainer,
  Scatter,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { formatCompact } from "@/lib/format";
import { seriesColor } from "./palette";

export interface TrendRunPoint {
  x: number;
  y: number;
  id: string;
  validity: string;
  label: string;
}

export interface TrendLevel {
  x: number;
  y: number | null;
  label: string;
}

export interface TrendChange {
  /** Index of the first experiment after the change; the line is drawn just before it. */
  x: number;
  label: string;
}

export interface TrendMarkerTick {
  id: string;
  x: number;
  kind: string;
  label: string;
}

interface Props {
  runs: TrendRunPoint[];
  medians: TrendLevel[];
  changes: TrendChange[];
  markers: TrendMarkerTick[];
  unit?: string;
  height?: number;
  ariaLabel: string;
  onRunClick?: (id: string) => void;
  onMedianClick?: (x: number) => void;
}

const COLORS = { ok: seriesColor(0), flagged: "#E69F00", invalid: "#D55E00", median: "#000000" };

function RunDot(props: { cx?: number; cy?: number; payload?: TrendRunPoint }) {
  const { cx = 0, cy = 0, payload } = props;
  const validity = payload?.validity ?? "ok";
  const color = validity === "invalid" ? COLORS.invalid : validity === "flagged" ? COLORS.flagged : COLORS.ok;
  return (
    <circle
      cx={cx}
      cy={cy}
      r={4}
      fill={validity === "invalid" ? "none" : color}
      stroke={color}
      strokeWidth={1.5}
      style={{ cursor: "pointer" }}
      data-validity={validity}
    >
      <title>{payload?.label}</title>
    </circle>
  );
}

export const TrendChart = memo(function TrendChart({
  runs,
  medians,
  changes,
  markers,
  unit,
  height = 280,
  ariaLabel,
  onRunClick,
  onMedianClick,
}: Props) {
  const names = medians.map((m) => m.label);
  const values = runs.map((r) => r.y);
  const low = values.length ? Math.min(...values) : 0;
  return (
    <figure className="mchart" aria-label={ariaLabel} data-points={runs.length} data-changes={changes.length}>
      <div style={{ width: "100%", height }}>
        <ResponsiveContainer width="100%" height="100%">
          <ComposedChart margin={{ top: 16, right: 12, bottom: 4, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="var(--border, #e5e7eb)" />
            <XAxis
              dataKey="x"
              type="number"
              domain={[-0.5, Math.max(0.5, names.length - 0.5)]}
              ticks={names.map((_, i) => i)}
              tickFormatter={(i: number) => names[i] ?? ""}
              allowDecimals={false}
              interval="preserveStartEnd"
              fontSize={11}
            />
            <YAxis
              dataKey="y"
              type="number"
              width={52}
              fontSize={11}
              domain={[low >= 0 ? 0 : "auto", "auto"]}
              tickFormatter={(v: number) => formatCompact(v)}
              unit={unit && unit !== "%" ? "" : unit}
            />
            <Tooltip
              isAnimationActive={false}
              formatter={(v: unknown) =>
                `${formatCompact(typeof v === "number" ? v : null)}${unit ? ` ${unit}` : ""}`
              }
              labelFormatter={(i: unknown) => (typeof i === "number" ? (names[Math.round(i)] ?? "") : "")}
            />
            {changes.map((c) => (
              <ReferenceLine
                key={`change-${c.x}`}
                x={c.x - 0.5}
                stroke={COLORS.invalid}
                strokeDasharray="6 3"
                strokeWidth={2}
                label={{ value: c.label, position: "insideTopRight", fontSize: 11, fill: COLORS.invalid }}
                className="trend-change-line"
              />
            ))}
            <Line
              data={medians}
              dataKey="y"
              name="median"
              stroke={COLORS.median}
              strokeWidth={2}
              connectNulls={false}
              isAnimationActive={false}
              dot={{ r: 3, cursor: onMedianClick ? "pointer" : undefined }}
              activeDot={{
                r: 5,
                onClick: (_: unknown, e: unknown) => {
                  const index = (e as { index?: number } | undefined)?.index;
                  if (onMedianClick && typeof index === "number") onMedianClick(index);
                },
              }}
            />
            <Scatter
              data={runs}
              dataKey="y"
              name="run"
              isAnimationActive={false}
              shape={<RunDot />}
              onClick={(p: unknown) => {
                const id = (p as { payload?: TrendRunPoint } | undefined)?.payload?.id;
                if (onRunClick && id) onRunClick(id);
              }}
            />
            {markers.map((m) => (
              <ReferenceDot
                key={m.id}
                x={m.x}
                y={low >= 0 ? 0 : low}
                r={5}
                fill={m.kind === "decision" ? COLORS.flagged : seriesColor(2)}
                stroke="none"
                ifOverflow="extendDomain"
              >
                <title>{m.label}</title>
              </ReferenceDot>
            ))}
          </ComposedChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
});
