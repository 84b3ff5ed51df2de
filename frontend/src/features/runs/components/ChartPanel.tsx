// One chart of a run: fetches only the series it shows (the busiest few of a per-process metric, more on
// request), and says plainly when it is loading, failed, or has nothing to draw yet.
import { useQuery } from "@tanstack/react-query";
import { type ReactNode, useEffect, useMemo, useState } from "react";
import { MetricChart, type MetricSeries, type TimeAnnotation } from "@/components/charts";
import { seriesColor } from "@/components/charts/palette";
import { ErrorBox } from "@/components/ErrorBox";
import { Skeleton } from "@/components/Skeleton";
import { formatInt } from "@/lib/format";
import type { TimeRange } from "@/lib/time-range";
import { seriesDataQueryOptions } from "../api";
import { type ChartSpec, DEFAULT_TOP, entityColors, entityKey, metricId, pickSeries } from "../metric-state";

// The API serves at most 200 series per request; "show all" stops there.
const MAX_SERIES = 200;
const HEIGHT = 170;

interface Props {
  runId: string;
  chart: ChartSpec;
  domain: [number, number];
  live: boolean;
  poll: boolean;
  annotations?: TimeAnnotation[];
  onExtent: (key: string, min: number, max: number) => void;
  onRemove: (chart: ChartSpec) => void;
  onSelectRange?: (range: TimeRange) => void;
  onResetRange?: () => void;
  /** The domain is a range the user zoomed to. */
  zoomed?: boolean;
}

function unitLabel(unit: string): string {
  return unit === "%" ? "%" : unit;
}

export function ChartPanel({
  runId,
  chart,
  domain,
  live,
  poll,
  annotations,
  onExtent,
  onRemove,
  onSelectRange,
  onResetRange,
  zoomed = false,
}: Props) {
  const [top, setTop] = useState(DEFAULT_TOP);
  const { picked, total } = useMemo(() => pickSeries(chart, top), [chart, top]);
  const ids = useMemo(() => picked.map((p) => p.meta.id), [picked]);
  const data = useQuery(seriesDataQueryOptions(runId, ids, poll));

  const colors = useMemo(() => entityColors(chart), [chart]);
  const series: MetricSeries[] = useMemo(() => {
    const byId = new Map((data.data?.series ?? []).map((s) => [s.id, s]));
    return picked.flatMap((p) => {
      const d = byId.get(p.meta.id);
      if (!d) return [];
      const color = seriesColor(colors.get(entityKey(p.meta)) ?? 0);
      return [
        {
          id: String(p.meta.id),
          label: p.label,
          t: d.t,
          v: d.v,
          axis: p.line.axis,
          dashed: p.line.dashed,
          color,
        },
      ];
    });
  }, [data.data, picked, colors]);

  useEffect(() => {
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (const s of series) {
      if (!s.t.length) continue;
      min = Math.min(min, s.t[0] as number);
      max = Math.max(max, s.t[s.t.length - 1] as number);
    }
    if (Number.isFinite(min)) onExtent(chart.key, min, max);
  }, [series, chart.key, onExtent]);

  const left = chart.lines.find((l) => l.axis === "left")?.info?.unit ?? "";
  const right = chart.lines.find((l) => l.axis === "right")?.info?.unit ?? "";
  const rightNames = chart.lines
    .filter((l) => l.axis === "right")
    .map((l) => l.ref.metric)
    .join(", ");
  const downsampled = data.data?.series.some((s) => s.downsampled) ?? false;
  const points = series.reduce((n, s) => n + s.t.length, 0);
  const multi = chart.lines.some((l) => (l.info?.series.length ?? 0) > 1);
  const missing = chart.lines.filter((l) => !l.info).map((l) => metricId(l.ref));
  const hiddenCount = total - picked.length;

  let body: ReactNode;
  if (!ids.length) {
    body = (
      <div className="chart-empty" style={{ height: HEIGHT }}>
        {live
          ? `Waiting for ${missing.join(", ") || "samples"}…`
          : `This run has no ${missing.join(", ") || "series"}.`}
      </div>
    );
  } else if (data.isPending) {
    body = (
      <div className="chart-empty" style={{ height: HEIGHT }} aria-busy="true">
        <span className="sr-only">Loading {chart.title}…</span>
        <Skeleton height={HEIGHT - 40} />
      </div>
    );
  } else if (data.error && !data.data) {
    body = <ErrorBox error={data.error} title="Could not load this chart" onRetry={() => data.refetch()} />;
  } else if (points === 0) {
    body = (
      <div className="chart-empty" style={{ height: HEIGHT }}>
        {live ? "Waiting for samples…" : "No samples in these series."}
      </div>
    );
  } else {
    body = (
      <MetricChart
        series={series}
        domain={domain}
        unit={unitLabel(left)}
        rightUnit={unitLabel(right)}
        yDomain={chart.yDomain}
        height={HEIGHT}
        annotations={annotations}
        ariaLabel={`${chart.role}: ${chart.title}`}
        testId={`chart-${chart.key}`}
        onSelectRange={onSelectRange}
        onResetRange={onResetRange}
        zoomed={zoomed}
        live={live}
      />
    );
  }

  return (
    <section className="chart-panel" aria-label={`${chart.role}: ${chart.title}`} data-chart={chart.key}>
      <header className="chart-panel-header">
        <h4 className="chart-title" title={chart.lines.map((l) => metricId(l.ref)).join(", ")}>
          {chart.title}
          {left && !chart.title.includes(left) && left !== "procs" ? (
            <span className="faint"> · {left}</span>
          ) : null}
          {rightNames ? <span className="faint"> · {rightNames} on the right axis</span> : null}
        </h4>
        <div className="chart-tools">
          {downsampled ? (
            <span
              className="badge plain"
              title={`Averaged by the server into at most 2,000 points per series`}
            >
              downsampled
            </span>
          ) : null}
          {/* While live the charts refresh every second; a dot then would only flicker. */}
          {data.isFetching && !data.isPending && !live ? (
            <span className="chart-fetching" role="status" aria-label="Updating" />
          ) : null}
          {multi && hiddenCount > 0 ? (
            <button
              type="button"
              className="btn btn-ghost btn-sm"
              onClick={() => setTop(MAX_SERIES)}
              title="Show every process or queue of this metric (up to 200)"
            >
              top {picked.length} of {formatInt(total)} · show all
            </button>
          ) : null}
          {multi && top > DEFAULT_TOP && total > DEFAULT_TOP ? (
            <button type="button" className="btn btn-ghost btn-sm" onClick={() => setTop(DEFAULT_TOP)}>
              top {DEFAULT_TOP} only
            </button>
          ) : null}
          <button
            type="button"
            className="btn btn-ghost btn-sm chart-remove"
            onClick={() => onRemove(chart)}
            aria-label={`Remove chart ${chart.title} (${chart.role})`}
            title="Remove this chart"
          >
            ×
          </button>
        </div>
      </header>
      {body}
    </section>
  );
}
