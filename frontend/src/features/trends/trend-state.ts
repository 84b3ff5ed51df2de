// The trend page's view state in the URL: ?metric=KEY (default: requests/sec when the project has it).
import type { TrendMetric } from "./api";

export const DEFAULT_METRIC = "wrk.requests_per_sec";

export function chosenMetric(params: URLSearchParams, metrics: readonly TrendMetric[] | undefined): string {
  const raw = params.get("metric")?.trim() ?? "";
  if (raw) return raw;
  if (!metrics) return "";
  return metrics.some((m) => m.key === DEFAULT_METRIC) ? DEFAULT_METRIC : (metrics[0]?.key ?? "");
}

export function withMetric(params: URLSearchParams, metric: string): URLSearchParams {
  const next = new URLSearchParams(params);
  if (metric === DEFAULT_METRIC) next.delete("metric");
  else next.set("metric", metric);
  return next;
}

/** Change-point sensitivity: the false-alarm rate per history. The server's default stays out of the URL. */
export const DEFAULT_ALPHA = 0.05;
export const ALPHA_CHOICES: readonly { value: number; label: string }[] = [
  { value: 0.01, label: "Cautious: 1 false alarm in 100 flat histories" },
  { value: 0.05, label: "Default: 1 in 20" },
  { value: 0.1, label: "Sensitive: 1 in 10" },
  { value: 0.2, label: "Eager: 1 in 5" },
];

export function chosenAlpha(params: URLSearchParams): number {
  const raw = Number(params.get("alpha"));
  return ALPHA_CHOICES.some((c) => c.value === raw) ? raw : DEFAULT_ALPHA;
}

export function withAlpha(params: URLSearchParams, alpha: number): URLSearchParams {
  const next = new URLSearchParams(params);
  if (alpha === DEFAULT_ALPHA) next.delete("alpha");
  else next.set("alpha", String(alpha));
  return next;
}

/** The comparison of an experiment against the one before it: the question a change point raises. */
export function compareHref(slug: string, before: number, after: number): string {
  return `/p/${slug}/compare?e=${before}&e=${after}&base=${before}`;
}

const KIND_LABELS: Record<string, string> = {
  wrk: "Load test (wrk)",
  series: "Telemetry (steady-state mean)",
  syscalls: "Syscalls (strace -c)",
};

/** Metrics grouped for the chooser, in the order the server listed them. */
export function groupMetrics(metrics: readonly TrendMetric[]): { label: string; metrics: TrendMetric[] }[] {
  const groups = new Map<string, TrendMetric[]>();
  for (const m of metrics) {
    const list = groups.get(m.kind) ?? [];
    list.push(m);
    groups.set(m.kind, list);
  }
  return [...groups].map(([kind, list]) => ({ label: KIND_LABELS[kind] ?? kind, metrics: list }));
}
