// The run's time-series charts, per host role: vmstat CPU, interrupts and context switches, run queue;
// pidstat per process; netqtop per queue. The chosen metrics live in the URL (?m=...), every chart of
// the run shares one time axis and one cursor, and a live run's charts grow as samples arrive. A time
// range dragged on any chart (?t=START-END) zooms every chart; double-click or "Whole run" resets it.
import { useQuery } from "@tanstack/react-query";
import { type ReactNode, useCallback, useMemo, useState } from "react";
import { useLocation, useNavigate, useSearchParams } from "react-router";
import { CopyButton } from "@/components/CopyButton";
import { ChartCursorProvider, type TimeAnnotation } from "@/components/charts";
import { EmptyState } from "@/components/EmptyState";
import { ErrorBox } from "@/components/ErrorBox";
import { Skeleton } from "@/components/Skeleton";
import { countOf, formatInt } from "@/lib/format";
import { formatClock } from "@/lib/time-axis";
import { useUrlTimeRange } from "@/lib/time-range";
import { readableSearch } from "@/lib/url-state";
import {
  type Capability,
  isLive,
  projectHostsQueryOptions,
  type RunDetail,
  seriesListQueryOptions,
  unavailableCollectors,
} from "../api";
import {
  availableMetrics,
  type ChartSpec,
  chartsFor,
  defaultMetrics,
  type MetricRef,
  metricId,
  readMetrics,
  toggleMetric,
  writeMetrics,
} from "../metric-state";
import { plannedDurationS } from "../summaries";
import { ChartPanel } from "./ChartPanel";
import { MetricPicker } from "./MetricPicker";

interface Props {
  run: RunDetail;
  /** Poll instead of relying on server-sent events (they failed or are unavailable). */
  poll: boolean;
  /** Labelled time ranges drawn on every chart (time-range notes). */
  annotations?: TimeAnnotation[];
}

type Extent = { min: number; max: number };

export function RunCharts({ run, poll, annotations }: Props) {
  const live = isLive(run.status);
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const [picking, setPicking] = useState(false);
  const list = useQuery(seriesListQueryOptions(run.id, poll && live));
  const hosts = useQuery({ ...projectHostsQueryOptions(run.project_slug), enabled: run.hosts.length > 0 });

  const roleOrder = useMemo(() => [...new Set(run.hosts.map((h) => h.role))], [run.hosts]);
  const available = useMemo(() => availableMetrics(list.data ?? [], roleOrder), [list.data, roleOrder]);
  const defaults = useMemo(() => defaultMetrics(available), [available]);
  const fromUrl = useMemo(() => readMetrics(params), [params]);
  // The choice shows at once; the URL (replaced, not pushed) catches up a moment later.
  const location = useLocation();
  const [pending, setPending] = useState<{ search: string; list: MetricRef[] } | null>(null);
  // Once the URL has caught up it is the truth again (and back/forward work as usual).
  if (pending && pending.search === location.search) setPending(null);
  const waiting = pending && pending.search !== location.search ? pending.list : null;
  const selected = waiting ?? fromUrl ?? defaults;
  const selectedIds = useMemo(() => new Set(selected.map(metricId)), [selected]);
  const charts = useMemo(() => chartsFor(selected, available), [selected, available]);

  const setSelected = useCallback(
    (next: MetricRef[]) => {
      const search = readableSearch(
        writeMetrics(new URLSearchParams(window.location.search), next, defaults),
      );
      if (search === window.location.search) return;
      setPending({ search, list: next });
      navigate({ search }, { replace: true, preventScrollReset: true });
    },
    [navigate, defaults],
  );
  const removeChart = useCallback(
    (chart: ChartSpec) => {
      const gone = new Set(chart.lines.map((l) => metricId(l.ref)));
      setSelected(selected.filter((m) => !gone.has(metricId(m))));
    },
    [selected, setSelected],
  );

  // One time axis for every chart: from the earliest sample (collectors start before the load) to the
  // latest, and while live at least to the planned end of the load, so the charts fill left to right.
  const [extents, setExtents] = useState<Record<string, Extent>>({});
  const onExtent = useCallback((key: string, min: number, max: number) => {
    setExtents((prev) => {
      const cur = prev[key];
      return cur && cur.min === min && cur.max === max ? prev : { ...prev, [key]: { min, max } };
    });
  }, []);
  const planned = live ? plannedDurationS(run.load_command) : null;
  const [range, setRange] = useUrlTimeRange();
  const resetRange = useCallback(() => setRange(null), [setRange]);
  const domain = useMemo((): [number, number] => {
    if (range) return [range.start, range.end];
    const all = Object.values(extents);
    const min = Math.min(0, ...all.map((e) => e.min));
    const max = Math.max(planned ?? 0, ...all.map((e) => e.max));
    return [min, Math.max(max, min + 1)];
  }, [extents, planned, range]);

  // What each role's hosts said they cannot collect (netqtop without bcc or root).
  const unavailable = useMemo(() => {
    const out = new Map<string, (Capability & { hostname: string })[]>();
    for (const rh of run.hosts) {
      const host = hosts.data?.find((h) => h.agent_id === rh.agent_id);
      if (!host) continue;
      const caps = unavailableCollectors(host, "netqtop").map((c) => ({ ...c, hostname: rh.hostname }));
      if (caps.length) out.set(rh.role, [...(out.get(rh.role) ?? []), ...caps]);
    }
    return out;
  }, [hosts.data, run.hosts]);

  const roles = useMemo(() => {
    const seen = [...new Set([...available.map((m) => m.role), ...charts.map((c) => c.role)])];
    for (const r of unavailable.keys()) if (!seen.includes(r)) seen.push(r);
    return seen.filter((r) => charts.some((c) => c.role === r) || unavailable.has(r));
  }, [available, charts, unavailable]);

  const customized = (waiting ?? fromUrl) !== null;
  let body: ReactNode;
  if (list.isPending) {
    body = (
      <div className="chart-grid" aria-busy="true">
        <span className="sr-only">Loading charts…</span>
        {[0, 1, 2, 3].map((i) => (
          <div key={i} className="chart-panel">
            <Skeleton width="40%" />
            <div style={{ height: 12 }} />
            <Skeleton height={150} />
          </div>
        ))}
      </div>
    );
  } else if (list.error && !list.data) {
    body = (
      <ErrorBox error={list.error} title="Could not load the run's series" onRetry={() => list.refetch()} />
    );
  } else if (available.length === 0 && !customized) {
    body = (
      <EmptyState title={live ? "Waiting for the first samples" : "No time series in this run"}>
        <p>
          {live
            ? "Charts appear as soon as a host streams vmstat, pidstat or netqtop lines; this page updates by itself."
            : "Start agents with --collect vmstat or --collect pidstat:PROCESS (or import vmstat / pidstat output) to chart what each machine did during the load."}
        </p>
        {[...unavailable.values()].flat().map((c) => (
          <p key={`${c.hostname}-${c.collector}`} className="unavailable-note">
            {c.collector} unavailable on {c.hostname}
            {c.reason ? `: ${c.reason}` : ""}
          </p>
        ))}
      </EmptyState>
    );
  } else if (charts.length === 0 && roles.length === 0) {
    body = (
      <EmptyState
        title="No charts selected"
        action={
          <>
            <button type="button" className="btn btn-sm" onClick={() => setPicking(true)}>
              Choose metrics
            </button>
            <button type="button" className="btn btn-sm" onClick={() => setSelected(defaults)}>
              Reset to default charts
            </button>
          </>
        }
      >
        <p>This run has {countOf(available.length, "metric")}; pick the ones to chart.</p>
      </EmptyState>
    );
  } else {
    body = (
      <ChartCursorProvider>
        {roles.map((role) => {
          const roleCharts = charts.filter((c) => c.role === role);
          const hostnames = run.hosts.filter((h) => h.role === role).map((h) => h.hostname);
          return (
            <section key={role} className="role-section" aria-label={`Charts of role ${role}`}>
              <h3 className="role-title">
                <span className="tag">{role}</span>
                {hostnames.length ? <span className="muted">{hostnames.join(", ")}</span> : null}
              </h3>
              {(unavailable.get(role) ?? []).map((c) => (
                <p key={`${c.hostname}-${c.collector}`} className="unavailable-note" role="note">
                  <span className="unavailable">{c.collector}</span> unavailable on {c.hostname}
                  {c.reason ? `: ${c.reason}` : ""}. Its per-queue charts are not available for this host.
                </p>
              ))}
              {roleCharts.length ? (
                <div className="chart-grid">
                  {roleCharts.map((chart) => (
                    <ChartPanel
                      key={chart.key}
                      runId={run.id}
                      chart={chart}
                      domain={domain}
                      live={live}
                      poll={poll && live}
                      annotations={annotations}
                      onExtent={onExtent}
                      onRemove={removeChart}
                      onSelectRange={setRange}
                      onResetRange={resetRange}
                      zoomed={range !== null}
                    />
                  ))}
                </div>
              ) : null}
            </section>
          );
        })}
      </ChartCursorProvider>
    );
  }

  return (
    <section className="card" aria-labelledby="charts-title" data-testid="run-charts">
      <div className="card-header">
        <h2 id="charts-title">
          Charts{" "}
          {available.length ? (
            <span className="faint" style={{ fontWeight: 400 }}>
              · {formatInt(charts.length)} shown of {countOf(available.length, "metric")}
            </span>
          ) : null}
        </h2>
        <div className="actions">
          {range ? (
            <span className="range-chip" data-testid="time-range">
              <span className="num">
                {formatClock(range.start)}–{formatClock(range.end)}
              </span>
              <button type="button" className="btn btn-sm btn-ghost" onClick={resetRange}>
                Whole run
              </button>
            </span>
          ) : available.length ? (
            <span className="faint hint-drag">Drag across a chart to zoom</span>
          ) : null}
          {available.length ? (
            <button
              type="button"
              className="btn btn-sm"
              aria-expanded={picking}
              onClick={() => setPicking((p) => !p)}
            >
              {picking ? "Close metrics" : "Add metrics"}
            </button>
          ) : null}
          {customized ? (
            <button type="button" className="btn btn-sm btn-ghost" onClick={() => setSelected(defaults)}>
              Reset
            </button>
          ) : null}
          <CopyButton text={typeof window === "undefined" ? "" : window.location.href} label="Copy link" />
        </div>
      </div>
      {picking ? (
        <MetricPicker
          available={available}
          selected={selectedIds}
          onToggle={(ref) => setSelected(toggleMetric(selected, ref))}
          onReset={() => setSelected(defaults)}
          onClose={() => setPicking(false)}
        />
      ) : null}
      <div className="card-body charts-body">{body}</div>
    </section>
  );
}
