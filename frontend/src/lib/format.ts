// Number, time and change formatting for dense tables. One place so every page rounds the same way
// and a reader can compare columns by eye. Locale is fixed to en-US: thousands separators must not
// turn into decimal commas between two engineers' screenshots of the same run.

const EMPTY = "—";

const intFmt = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

export function isNum(v: unknown): v is number {
  return typeof v === "number" && Number.isFinite(v);
}

/** 12722.92 -> "12,723". */
export function formatInt(v: number | null | undefined): string {
  return isNum(v) ? intFmt.format(v) : EMPTY;
}

/** Fixed decimals with thousands separators: (12722.918, 2) -> "12,722.92". */
export function formatFixed(v: number | null | undefined, digits = 2): string {
  if (!isNum(v)) return EMPTY;
  return new Intl.NumberFormat("en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(v);
}

/**
 * A count with its noun, singular or plural as the number asks: (1, "experiment") -> "1 experiment",
 * (1200, "run") -> "1,200 runs"; irregular plurals are passed: (3, "series", "series").
 */
export function countOf(n: number, one: string, many = `${one}s`): string {
  return `${formatInt(n)} ${n === 1 ? one : many}`;
}

/** Just the noun for a count shown elsewhere: ("run", 1) -> "run". */
export function nounFor(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}

/** Three significant digits with k/M/G suffix: 12722.9 -> "12.7k", 950 -> "950". */
export function formatCompact(v: number | null | undefined): string {
  if (!isNum(v)) return EMPTY;
  const abs = Math.abs(v);
  const units: [number, string][] = [
    [1e9, "G"],
    [1e6, "M"],
    [1e3, "k"],
  ];
  for (const [scale, suffix] of units) {
    if (abs >= scale * 0.9995) return `${sig3(v / scale)}${suffix}`;
  }
  return sig3(v);
}

function sig3(v: number): string {
  const abs = Math.abs(v);
  if (abs === 0) return "0";
  if (abs >= 100) return v.toFixed(0);
  if (abs >= 10) return trimZeros(v.toFixed(1));
  if (abs >= 1) return trimZeros(v.toFixed(2));
  return trimZeros(v.toPrecision(2));
}

function trimZeros(s: string): string {
  return s.includes(".") ? s.replace(/\.?0+$/, "") : s;
}

/** Latency in milliseconds, scaled to what a human reads: 0.42 ms, 37.2 ms, 372 ms, 1.24 s. */
export function formatMs(ms: number | null | undefined): string {
  if (!isNum(ms)) return EMPTY;
  const abs = Math.abs(ms);
  if (abs >= 1000) return `${(ms / 1000).toFixed(abs >= 10000 ? 1 : 2)} s`;
  if (abs >= 100) return `${ms.toFixed(0)} ms`;
  if (abs >= 10) return `${ms.toFixed(1)} ms`;
  if (abs >= 1) return `${ms.toFixed(2)} ms`;
  if (abs === 0) return "0 ms";
  return `${ms.toFixed(abs >= 0.01 ? 2 : 3)} ms`;
}

/** Elapsed seconds as 45s, 1m 05s, 2h 03m. */
export function formatDuration(seconds: number | null | undefined): string {
  if (!isNum(seconds) || seconds < 0) return EMPTY;
  if (seconds < 10) return `${trimZeros(seconds.toFixed(1))}s`;
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, "0")}s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ${String(m % 60).padStart(2, "0")}m`;
  return `${Math.floor(h / 24)}d ${String(h % 24).padStart(2, "0")}h`;
}

/** Seconds between two ISO timestamps, or null when either is missing. */
export function secondsBetween(
  start: string | null | undefined,
  end: string | null | undefined,
): number | null {
  if (!start || !end) return null;
  const d = (Date.parse(end) - Date.parse(start)) / 1000;
  return Number.isFinite(d) ? d : null;
}

/** A value already in percent: 48.71 -> "48.7%". */
export function formatPercent(pct: number | null | undefined, digits = 1): string {
  return isNum(pct) ? `${pct.toFixed(digits)}%` : EMPTY;
}

/** Percent change from a to b, or null when it is undefined (missing values or a zero base). */
export function percentChange(
  base: number | null | undefined,
  value: number | null | undefined,
): number | null {
  if (!isNum(base) || !isNum(value) || base === 0) return null;
  return ((value - base) / Math.abs(base)) * 100;
}

/**
 * A signed change the way engineers write it in a report: "+171%", "-48.7%", "+0.4%".
 * Big changes drop the decimal because "+171.3%" is false precision for noisy load tests.
 */
export function formatDeltaPct(pct: number | null | undefined): string {
  if (!isNum(pct)) return EMPTY;
  const abs = Math.abs(pct);
  const body = abs >= 100 ? abs.toFixed(0) : abs.toFixed(1);
  if (body === "0.0" || body === "0") return "±0%";
  return `${pct < 0 ? "-" : "+"}${body}%`;
}

export type Direction = "higher_is_better" | "lower_is_better";
export type Verdict = "better" | "worse" | "unchanged";

/** Whether a change is good for a metric; the UI shows the word as well as the colour. */
export function deltaVerdict(
  pct: number | null | undefined,
  direction: Direction,
  epsilonPct = 0.05,
): Verdict {
  if (!isNum(pct) || Math.abs(pct) < epsilonPct) return "unchanged";
  const up = pct > 0;
  return up === (direction === "higher_is_better") ? "better" : "worse";
}

const UNITS_BYTES = ["B", "KiB", "MiB", "GiB", "TiB"];

/** 24000000 KiB -> "22.9 GiB"; input in bytes. */
export function formatBytes(bytes: number | null | undefined): string {
  if (!isNum(bytes)) return EMPTY;
  let v = bytes;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < UNITS_BYTES.length - 1) {
    v /= 1024;
    i += 1;
  }
  return `${i === 0 ? v.toFixed(0) : trimZeros(v.toFixed(1))} ${UNITS_BYTES[i]}`;
}

/** "2026-11-22 14:05" in the viewer's time zone: short, sortable, unambiguous. */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return EMPTY;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return EMPTY;
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** "just now", "5 min ago", "3 h ago", "12 d ago", then the date. */
export function formatRelative(iso: string | null | undefined, now: number = Date.now()): string {
  if (!iso) return EMPTY;
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return EMPTY;
  const s = Math.round((now - t) / 1000);
  if (s < 0) return formatDateTime(iso);
  if (s < 45) return "just now";
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(s / 3600);
  if (h < 48) return `${h} h ago`;
  const d = Math.round(s / 86400);
  if (d < 45) return `${d} d ago`;
  return formatDateTime(iso).slice(0, 10);
}
