// The one place that knows recharts for time series: everything else passes plain series in.
// Time is seconds from run start, so runs of different experiments overlay when aligned.
import { useMemo } from "react";
import {
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ReferenceArea,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { formatCompact, formatDuration } from "@/lib/format";
import { seriesColor } from "./palette";

export interface TimePoint {
  /** Seconds from run start. */
  t: number;
  v: number | null;
}

export interface TimeSeries {
  id: string;
  label: string;
  points: TimePoint[];
}

export interface TimeAnnotation {
  start: number;
  end: number;
  label: string;
}

interface Props {
  series: TimeSeries[];
  unit?: string;
  height?: number;
  /** Charts with the same syncId share a cursor (compare overlays). */
  syncId?: string;
  annotations?: TimeAnnotation[];
  ariaLabel: string;
}

type Row = { t: number } & Record<string, number | null>;

/** Joins series on their time stamps into the row shape recharts wants. */
export function mergeSeries(series: TimeSeries[]): Row[] {
  const rows = new Map<number, Row>();
  for (const s of series) {
    for (const p of s.points) {
      let row = rows.get(p.t);
      if (!row) {
        row = { t: p.t } as Row;
        rows.set(p.t, row);
      }
      row[s.id] = p.v;
    }
  }
  return [...rows.values()].sort((a, b) => a.t - b.t);
}

export function TimeSeriesChart({
  series,
  unit = "",
  height = 220,
  syncId,
  annotations = [],
  ariaLabel,
}: Props) {
  const data = useMemo(() => mergeSeries(series), [series]);
  const fmt = (v: unknown) => (typeof v === "number" ? `${formatCompact(v)}${unit ? ` ${unit}` : ""}` : "—");
  return (
    <figure style={{ margin: 0 }} aria-label={ariaLabel}>
      <ResponsiveContainer width="100%" height={height}>
        <LineChart data={data} syncId={syncId} margin={{ top: 8, right: 16, bottom: 4, left: 4 }}>
          <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" vertical={false} />
          <XAxis
            dataKey="t"
            type="number"
            domain={["dataMin", "dataMax"]}
            tickFormatter={(v: number) => formatDuration(v)}
            stroke="var(--text-faint)"
            fontSize={11}
          />
          <YAxis
            tickFormatter={(v: number) => formatCompact(v)}
            stroke="var(--text-faint)"
            fontSize={11}
            width={48}
          />
          <Tooltip
            formatter={(v) => fmt(v)}
            labelFormatter={(t) => (typeof t === "number" ? `t+${formatDuration(t)}` : String(t))}
            contentStyle={{ background: "var(--surface)", border: "1px solid var(--border)", fontSize: 12 }}
          />
          {series.length > 1 ? <Legend wrapperStyle={{ fontSize: 12 }} /> : null}
          {annotations.map((a) => (
            <ReferenceArea
              key={`${a.start}-${a.end}-${a.label}`}
              x1={a.start}
              x2={a.end}
              fill="var(--warn-soft)"
              label={{ value: a.label, fontSize: 11, position: "insideTop" }}
            />
          ))}
          {series.map((s, i) => (
            <Line
              key={s.id}
              dataKey={s.id}
              name={s.label}
              stroke={seriesColor(i)}
              dot={false}
              strokeWidth={1.5}
              isAnimationActive={false}
              connectNulls={false}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}
