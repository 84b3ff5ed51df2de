// Host telemetry overlays: one small chart per metric, every run of every compared experiment on it,
// aligned to run start. Charts fetch when they come near the viewport, share one cursor, and draw
// the time-range notes of the runs they show as bands. The tooltip of the chart under the pointer has
// one row per experiment (median of its runs and their range); "Show runs" lists every run. A range dragged on one chart (?t= in the URL)
// zooms them all; double-click or "Whole run" resets.
import { useQuery } from "@tanstack/react-query";
import { useMemo, useRef } from "react";
import { type OverlayBand, OverlayChart, type OverlaySeries, runStyle } from "@/components/charts";
import { ErrorBox } from "@/components/ErrorBox";
import { markdownFirstLine } from "@/lib/markdown-plain";
import { formatClock } from "@/lib/time-axis";
import { useUrlTimeRange } from "@/lib/time-range";
import { useInView } from "@/lib/use-in-view";
import { type CompareReply, type CompareSource, type OverlayReply, overlayQueryOptions } from "../api";

/** Chart series for an overlay reply: experiment hue, run shade and dash; one line per host. */
export function overlaySeries(overlay: OverlayReply, experimentOrder: string[]): OverlaySeries[] {
  const out: OverlaySeries[] = [];
  for (const exp of overlay.experiments) {
    const ei = Math.max(0, experimentOrder.indexOf(exp.experiment));
    exp.runs.forEach((run, ri) => {
      const style = runStyle(ei, ri);
      for (const line of run.lines) {
        const host = run.lines.length > 1 && line.host ? ` · ${line.host}` : "";
        out.push({
          id: `${run.run_id}:${line.stream_id}`,
          label: `${exp.experiment} · ${run.label}${host}`,
          group: exp.experiment,
          color: style.color,
          dash: style.dash,
          points: line.t.map((t, i) => ({ t, v: line.v[i] ?? 0 })),
        });
      }
    });
  }
  return out;
}

/** Time-range notes as bands, named by the run they belong to. */
export function overlayBands(overlay: OverlayReply): OverlayBand[] {
  const runs = new Map<string, string>();
  for (const e of overlay.experiments)
    for (const r of e.runs) runs.set(r.run_id, `${e.experiment} ${r.label}`);
  return overlay.notes
    .filter((n) => n.t_start_s !== null && n.t_start_s !== undefined)
    .map((n) => ({
      id: n.id,
      start: n.t_start_s as number,
      end: n.t_end_s ?? null,
      label: `${n.run_id ? (runs.get(n.run_id) ?? "") : ""}: ${markdownFirstLine(n.body_md, 80)}`,
    }));
}

interface PanelProps {
  source: CompareSource;
  role: string;
  metric: string;
  label: string;
  unit: string;
  experimentOrder: string[];
  syncId: string;
  /** Tooltips list every run instead of one row per experiment. */
  showRuns?: boolean;
}

export function OverlayPanel({
  source,
  role,
  metric,
  label,
  unit,
  experimentOrder,
  syncId,
  showRuns = false,
}: PanelProps) {
  const ref = useRef<HTMLDivElement>(null);
  const seen = useInView(ref);
  const q = useQuery({ ...overlayQueryOptions(source, role, metric), enabled: seen });
  const series = useMemo(
    () => (q.data ? overlaySeries(q.data, experimentOrder) : []),
    [q.data, experimentOrder],
  );
  const bands = useMemo(() => (q.data ? overlayBands(q.data) : []), [q.data]);
  const [range, setRange] = useUrlTimeRange();
  const domain = useMemo((): [number, number] | null => (range ? [range.start, range.end] : null), [range]);
  const empty = q.data && series.every((s) => s.points.length === 0);
  return (
    <div className="cmp-chart" ref={ref} data-testid="overlay-chart" data-metric={`${role}:${metric}`}>
      <h3>
        <span>{q.data?.label ?? label}</span>
        <span className="faint mono">
          {metric}
          {unit ? ` (${unit})` : ""}
        </span>
        {range ? (
          <button
            type="button"
            className="btn btn-sm btn-ghost"
            data-testid="overlay-range"
            title="Show the whole run (or double-click the chart)"
            onClick={() => setRange(null)}
          >
            {formatClock(range.start)}–{formatClock(range.end)} · whole run
          </button>
        ) : null}
      </h3>
      {q.error ? (
        <ErrorBox error={q.error} title="Could not load this chart" onRetry={() => q.refetch()} />
      ) : !q.data ? (
        <div className="cmp-chart-placeholder" aria-busy="true">
          {seen ? "Loading…" : "Scroll to load"}
        </div>
      ) : empty ? (
        <div className="cmp-chart-placeholder">No samples of this metric in the compared runs.</div>
      ) : (
        <OverlayChart
          series={series}
          bands={bands}
          unit={q.data.unit}
          syncId={syncId}
          ariaLabel={`${q.data.label} of ${role} over time, every compared run`}
          domain={domain}
          onSelectRange={setRange}
          onResetRange={() => setRange(null)}
          showRuns={showRuns}
        />
      )}
    </div>
  );
}

/** Which colour and line style is which: experiments by hue, runs by shade and dash; and whether
 * tooltips summarise each experiment's runs or list them. */
export function OverlayLegend({
  reply,
  showRuns,
  onShowRuns,
}: {
  reply: CompareReply;
  showRuns: boolean;
  onShowRuns: (next: boolean) => void;
}) {
  const maxRuns = Math.max(1, ...reply.columns.map((c) => c.runs.length));
  return (
    <p className="cmp-legend">
      {reply.columns.map((c, ei) => (
        <span key={c.id} className="cmp-legend-item">
          <svg width={28} height={10} aria-hidden="true">
            {Array.from({ length: Math.min(3, Math.max(1, c.runs.length)) }, (_, ri) => {
              const s = runStyle(ei, ri);
              return (
                <line
                  // biome-ignore lint/suspicious/noArrayIndexKey: fixed swatch per run index
                  key={ri}
                  x1={0}
                  x2={28}
                  y1={2 + ri * 3}
                  y2={2 + ri * 3}
                  stroke={s.color}
                  strokeWidth={2}
                  strokeDasharray={s.dash || undefined}
                />
              );
            })}
          </svg>
          <strong style={{ color: "var(--text)" }}>{c.name}</strong>
          {c.is_baseline ? " (baseline)" : ""}
        </span>
      ))}
      {maxRuns > 1 ? (
        <span>
          runs of one experiment: same hue; run 1 solid, run 2 lighter and dashed, run 3 darker and dotted
        </span>
      ) : null}
      {maxRuns > 1 ? (
        <button
          type="button"
          className="btn btn-sm btn-ghost"
          aria-pressed={showRuns}
          data-testid="overlay-show-runs"
          title={
            showRuns
              ? "Tooltips: one row per experiment (median of its runs, min–max)"
              : "Tooltips: one row per run"
          }
          onClick={() => onShowRuns(!showRuns)}
        >
          Show runs in tooltips
        </button>
      ) : null}
    </p>
  );
}
