// Which metrics a run page charts, and how they become charts. A metric is ROLE:SOURCE.METRIC
// ("proxy:vmstat.sy", "proxy:pidstat.cpu_pct", "proxy:netqtop.tx.bps"); it may hold many series (one
// per process, one per queue). The chosen metrics live in the URL (?m=a,b,c) so a link keeps the view;
// metrics that belong together (us/sy/id/wa/st, in+cs, voluntary+involuntary switches) share a chart.
import type { Schemas } from "@/api/client";

export type SeriesMeta = Schemas["SeriesRead"];

export interface MetricRef {
  role: string;
  source: string;
  metric: string;
}

/** A metric present in the run, with its series. */
export interface MetricInfo extends MetricRef {
  id: string;
  unit: string;
  series: SeriesMeta[];
}

export const METRICS_PARAM = "m";

export function metricId(m: MetricRef): string {
  return `${m.role}:${m.source}.${m.metric}`;
}

/** "proxy:netqtop.tx.bps" -> {role: proxy, source: netqtop, metric: tx.bps}; null when malformed. */
export function parseMetricId(raw: string): MetricRef | null {
  const s = raw.trim();
  const colon = s.indexOf(":");
  if (colon <= 0) return null;
  const role = s.slice(0, colon);
  const rest = s.slice(colon + 1);
  const dot = rest.indexOf(".");
  if (dot <= 0 || dot === rest.length - 1) return null;
  if (!/^[A-Za-z0-9_.-]+$/.test(role)) return null;
  return { role, source: rest.slice(0, dot), metric: rest.slice(dot + 1) };
}

/** The metrics in the URL, or null when the URL says nothing (then the defaults apply). */
export function readMetrics(params: URLSearchParams): MetricRef[] | null {
  const raw = params.get(METRICS_PARAM);
  if (raw === null) return null;
  const seen = new Set<string>();
  const out: MetricRef[] = [];
  for (const part of raw.split(",")) {
    const ref = parseMetricId(part);
    if (!ref) continue;
    const id = metricId(ref);
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(ref);
  }
  return out;
}

export function serializeMetrics(list: readonly MetricRef[]): string {
  return list.map(metricId).join(",");
}

/**
 * New params with the chosen metrics: dropped when they equal the defaults (short canonical links),
 * "m=" when the user removed every chart. Other params are kept.
 */
export function writeMetrics(
  params: URLSearchParams,
  list: readonly MetricRef[],
  defaults: readonly MetricRef[],
): URLSearchParams {
  const next = new URLSearchParams(params);
  const value = serializeMetrics(list);
  if (value === serializeMetrics(defaults)) next.delete(METRICS_PARAM);
  else next.set(METRICS_PARAM, value);
  return next;
}

/** Adds a metric (at the end) or removes it. */
export function toggleMetric(list: readonly MetricRef[], ref: MetricRef): MetricRef[] {
  const id = metricId(ref);
  return list.some((m) => metricId(m) === id) ? list.filter((m) => metricId(m) !== id) : [...list, ref];
}

// ---------- what the run has ----------

/** Every metric of the run, grouped from its series; roles in `roleOrder` first, then by name. */
export function availableMetrics(
  series: readonly SeriesMeta[],
  roleOrder: readonly string[] = [],
): MetricInfo[] {
  const byId = new Map<string, MetricInfo>();
  for (const s of series) {
    const ref = { role: s.role, source: s.source, metric: s.metric };
    const id = metricId(ref);
    let info = byId.get(id);
    if (!info) {
      info = { ...ref, id, unit: s.unit, series: [] };
      byId.set(id, info);
    }
    info.series.push(s);
  }
  const roleRank = (r: string) => {
    const i = roleOrder.indexOf(r);
    return i < 0 ? roleOrder.length : i;
  };
  return [...byId.values()].sort(
    (a, b) =>
      roleRank(a.role) - roleRank(b.role) ||
      a.role.localeCompare(b.role) ||
      sourceRank(a.source) - sourceRank(b.source) ||
      a.source.localeCompare(b.source) ||
      metricRank(a) - metricRank(b) ||
      a.metric.localeCompare(b.metric),
  );
}

/** Metrics per role, in the order of `available`. */
export function groupByRole<T extends { role: string }>(items: readonly T[]): [string, T[]][] {
  const out = new Map<string, T[]>();
  for (const it of items) {
    const list = out.get(it.role);
    if (list) list.push(it);
    else out.set(it.role, [it]);
  }
  return [...out.entries()];
}

const SOURCE_ORDER = ["vmstat", "pidstat", "netqtop"];
function sourceRank(s: string): number {
  const i = SOURCE_ORDER.indexOf(s);
  return i < 0 ? SOURCE_ORDER.length : i;
}

// The default charts for a role, in display order.
const DEFAULTS: Record<string, string[]> = {
  vmstat: ["us", "sy", "id", "wa", "st", "in", "cs", "r"],
  pidstat: ["cpu_pct", "system_pct", "cswch_per_s", "nvcswch_per_s"],
  netqtop: ["tx.bps", "rx.bps", "tx.pps", "rx.pps"],
};

function metricRank(m: MetricRef): number {
  const list = DEFAULTS[m.source] ?? [];
  const i = list.indexOf(m.metric);
  return i < 0 ? list.length : i;
}

/** The charts a run opens with: the usual suspects of each role, for the metrics the run has. */
export function defaultMetrics(available: readonly MetricInfo[]): MetricRef[] {
  return available
    .filter((m) => (DEFAULTS[m.source] ?? []).includes(m.metric))
    .map(({ role, source, metric }) => ({ role, source, metric }));
}

// ---------- charts ----------

interface Group {
  key: string;
  title: string;
  metrics: string[];
  /** Metrics drawn on a second y axis when they share the chart with others. */
  right?: string[];
  dashed?: string[];
  yDomain?: [number, number];
}

const GROUPS: Record<string, Group[]> = {
  vmstat: [
    { key: "cpu", title: "CPU %", metrics: ["us", "sy", "id", "wa", "st", "gu"], yDomain: [0, 100] },
    { key: "intr", title: "Interrupts & context switches /s", metrics: ["in", "cs"], right: ["cs"] },
    { key: "procs", title: "Processes: runnable (r), blocked (b)", metrics: ["r", "b"] },
    { key: "mem", title: "Memory", metrics: ["swpd", "free", "buff", "cache", "inact", "active"] },
    { key: "swap", title: "Swap in/out", metrics: ["si", "so"] },
    { key: "io", title: "Block I/O", metrics: ["bi", "bo"] },
  ],
  pidstat: [
    {
      key: "cs",
      title: "Context switches /s per process",
      metrics: ["cswch_per_s", "nvcswch_per_s"],
      dashed: ["nvcswch_per_s"],
    },
  ],
};

const TITLES: Record<string, Record<string, string>> = {
  vmstat: {
    us: "User CPU %",
    sy: "System CPU %",
    id: "Idle CPU %",
    wa: "I/O wait %",
    st: "Stolen CPU %",
    gu: "Guest CPU %",
    r: "Runnable processes (r)",
    b: "Blocked processes (b)",
    in: "Interrupts",
    cs: "Context switches",
    bi: "Blocks in",
    bo: "Blocks out",
    si: "Swapped in",
    so: "Swapped out",
    free: "Free memory",
    swpd: "Swap used",
    buff: "Buffers",
    cache: "Page cache",
  },
  pidstat: {
    cpu_pct: "%CPU per process",
    system_pct: "%system per process",
    usr_pct: "%usr per process",
    wait_pct: "%wait per process",
    guest_pct: "%guest per process",
    cswch_per_s: "Voluntary context switches /s",
    nvcswch_per_s: "Involuntary context switches /s",
    minflt_per_s: "Minor faults /s per process",
    majflt_per_s: "Major faults /s per process",
    rss_kb: "RSS per process",
    vsz_kb: "Virtual size per process",
    mem_pct: "%memory per process",
    kb_rd_per_s: "Disk reads kB/s per process",
    kb_wr_per_s: "Disk writes kB/s per process",
  },
  netqtop: {
    "tx.bps": "TX bytes/s per queue",
    "rx.bps": "RX bytes/s per queue",
    "tx.pps": "TX packets/s per queue",
    "rx.pps": "RX packets/s per queue",
    "tx.avg_size_bytes": "TX average packet size per queue",
    "rx.avg_size_bytes": "RX average packet size per queue",
  },
};

const SHORT: Record<string, string> = { cswch_per_s: "vol", nvcswch_per_s: "invol" };

export function metricTitle(ref: MetricRef): string {
  return TITLES[ref.source]?.[ref.metric] ?? `${ref.source} ${ref.metric}`;
}

export interface ChartLine {
  ref: MetricRef;
  /** The metric's series in the run, [] while it has none (yet). */
  info: MetricInfo | null;
  axis: "left" | "right";
  dashed: boolean;
}

export interface ChartSpec {
  /** Stable across renders: role, source and group (or metric). */
  key: string;
  role: string;
  source: string;
  title: string;
  lines: ChartLine[];
  yDomain?: [number, number];
}

function groupOf(ref: MetricRef): Group | null {
  return GROUPS[ref.source]?.find((g) => g.metrics.includes(ref.metric)) ?? null;
}

/** Turns the chosen metrics into charts, in the order they were chosen; group members share a chart. */
export function chartsFor(selected: readonly MetricRef[], available: readonly MetricInfo[]): ChartSpec[] {
  const info = new Map(available.map((m) => [m.id, m]));
  const charts = new Map<string, ChartSpec>();
  for (const ref of selected) {
    const group = groupOf(ref);
    const key = `${ref.role}:${ref.source}:${group ? group.key : ref.metric}`;
    let chart = charts.get(key);
    if (!chart) {
      chart = {
        key,
        role: ref.role,
        source: ref.source,
        title: group ? group.title : metricTitle(ref),
        lines: [],
      };
      if (group?.yDomain) chart.yDomain = group.yDomain;
      charts.set(key, chart);
    }
    chart.lines.push({
      ref,
      info: info.get(metricId(ref)) ?? null,
      axis: "left",
      dashed: !!group?.dashed?.includes(ref.metric),
    });
  }
  for (const chart of charts.values()) {
    const group = groupOf(chart.lines[0]?.ref ?? { role: "", source: "", metric: "" });
    // Members of a group keep the group's order (us, sy, id, ... whatever order they were picked in).
    if (group)
      chart.lines.sort((a, b) => group.metrics.indexOf(a.ref.metric) - group.metrics.indexOf(b.ref.metric));
    // A second axis only when it shares the chart with a first one (cs is 10x in: it would flatten it).
    const rights = chart.lines.filter((l) => group?.right?.includes(l.ref.metric));
    if (rights.length && rights.length < chart.lines.length) for (const l of rights) l.axis = "right";
    if (chart.lines.length === 1 && chart.lines[0] && group && group.metrics.length > 1 && !group.yDomain) {
      // A lone member of a group reads better under its own name.
      chart.title = metricTitle(chart.lines[0].ref);
    }
  }
  return [...charts.values()];
}

// ---------- series inside a chart ----------

function labelText(v: unknown): string {
  return v === null || v === undefined ? "?" : String(v);
}

/** What a series is called in a legend: the metric for vmstat, the process for pidstat, the queue for netqtop. */
export function seriesLabel(s: SeriesMeta, withMetric: boolean): string {
  const l = s.labels ?? {};
  let base: string;
  if (s.source === "pidstat") {
    base = `${labelText(l.command)} ${labelText(l.pid)}${l.tid !== undefined && l.tid !== null ? `/${labelText(l.tid)}` : ""}`;
  } else if (s.source === "netqtop") {
    base = l.queue === "total" ? "total" : `queue ${labelText(l.queue)}`;
  } else if (Object.keys(l).length) {
    base = Object.entries(l)
      .map(([k, v]) => `${k}=${labelText(v)}`)
      .join(" ");
  } else {
    return s.metric;
  }
  return withMetric ? `${base} · ${SHORT[s.metric] ?? s.metric}` : base;
}

function mean(s: SeriesMeta): number {
  const m = s.stats?.mean;
  return typeof m === "number" && Number.isFinite(m) ? m : Number.NEGATIVE_INFINITY;
}

export const DEFAULT_TOP = 8;

export interface PickedSeries {
  meta: SeriesMeta;
  line: ChartLine;
  label: string;
}

/**
 * The series a chart draws: all of a single-series metric; for per-process or per-queue metrics the
 * busiest `top` by mean (a run with 88 nginx workers must not fetch and draw 88 lines by default).
 */
export function pickSeries(chart: ChartSpec, top = DEFAULT_TOP): { picked: PickedSeries[]; total: number } {
  const picked: PickedSeries[] = [];
  let total = 0;
  const multiMetric = chart.lines.length > 1;
  for (const line of chart.lines) {
    const series = line.info?.series ?? [];
    total += series.length;
    const chosen = series.length > top ? [...series].sort((a, b) => mean(b) - mean(a)).slice(0, top) : series;
    for (const meta of chosen) {
      const labelled = Object.keys(meta.labels ?? {}).length > 0;
      picked.push({ meta, line, label: seriesLabel(meta, multiMetric && labelled) });
    }
  }
  return { picked, total };
}

/** Case-insensitive search over metric ids, titles, units and the labels of their series (pid, command). */
export function filterMetrics(available: readonly MetricInfo[], query: string): MetricInfo[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return [...available];
  return available.filter((m) => {
    const labels = m.series
      .slice(0, 200)
      .flatMap((s) => Object.values(s.labels ?? {}).map((v) => String(v)))
      .join(" ");
    const text = `${m.id} ${metricTitle(m)} ${m.unit} ${labels}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
}

/** What a series is about, apart from the metric: the process (pidstat), the queue (netqtop), or the metric itself. */
export function entityKey(s: Pick<SeriesMeta, "labels" | "metric">): string {
  const l = s.labels ?? {};
  return Object.keys(l).length
    ? Object.keys(l)
        .sort()
        .map((k) => `${k}=${labelText(l[k])}`)
        .join(",")
    : s.metric;
}

function numericFirst(a: string, b: string): number {
  return a.localeCompare(b, "en", { numeric: true });
}

/**
 * A colour index per process / queue / metric of a chart, ordered by pid or queue (not by how busy they
 * are), so nginx 794 keeps its colour on the %CPU, %system and context-switch charts of a role, and the
 * voluntary and involuntary lines of one process share a colour (the second is dashed).
 */
export function entityColors(chart: ChartSpec): Map<string, number> {
  const keys = new Set<string>();
  const labelled = chart.lines.some((l) => l.info?.series.some((s) => Object.keys(s.labels ?? {}).length));
  if (labelled) {
    const all = chart.lines.flatMap((l) => l.info?.series ?? []).map(entityKey);
    for (const k of [...new Set(all)].sort(numericFirst)) keys.add(k);
  } else {
    for (const l of chart.lines) keys.add(l.ref.metric);
  }
  return new Map([...keys].map((k, i) => [k, i]));
}
