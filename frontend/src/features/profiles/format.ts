// Profile values in their unit: perf's periods are nanoseconds (shown as time), samples are counts.
import { formatCompact, formatInt, formatMs } from "@/lib/format";

export function formatValue(v: number, unit: string): string {
  if (unit === "nanoseconds" || unit === "ns") return formatMs(v / 1e6);
  if (unit === "samples") return `${formatInt(v)} ${v === 1 ? "sample" : "samples"}`;
  return `${formatCompact(v)} ${unit}`;
}

/** Short form for table cells: "1.23 s", "12,345". */
export function formatCell(v: number, unit: string): string {
  if (unit === "nanoseconds" || unit === "ns") return formatMs(v / 1e6);
  if (unit === "samples") return formatInt(v);
  return formatCompact(v);
}

/** Signed value: "+12.3 ms", "−4 samples". */
export function formatSigned(v: number, unit: string): string {
  const s = formatCell(Math.abs(v), unit);
  if (Math.abs(v) < 1e-9) return `±${s}`;
  return `${v > 0 ? "+" : "−"}${s}`;
}

/** A share of the profile as a percentage with one decimal ("12.3%"); tiny non-zero shares say so. */
export function formatPct(fraction: number, digits = 1): string {
  const p = fraction * 100;
  if (p !== 0 && Math.abs(p) < 0.05) return p > 0 ? "<0.1%" : "−<0.1%";
  return `${p.toFixed(digits)}%`;
}

/** Signed percentage points of the profile: "+4.2 pp". */
export function formatPp(fraction: number): string {
  const p = fraction * 100;
  if (Math.abs(p) < 0.05) return "±0.0 pp";
  return `${p > 0 ? "+" : "−"}${Math.abs(p).toFixed(1)} pp`;
}
