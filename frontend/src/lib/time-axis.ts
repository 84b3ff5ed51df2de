// Time on run charts is seconds from the run's start, shown as a clock (1:05) so a reader can say
// "at 0:42 sy jumps" and find the same moment on every chart and in the raw output.

const EMPTY = "—";

/** Seconds as m:ss (0:05, 12:30), h:mm:ss past an hour; fractions are dropped, negatives keep a sign. */
export function formatClock(seconds: number | null | undefined): string {
  if (typeof seconds !== "number" || !Number.isFinite(seconds)) return EMPTY;
  const sign = seconds < 0 ? "-" : "";
  const total = Math.floor(Math.abs(seconds) + 1e-9);
  const s = total % 60;
  const m = Math.floor(total / 60) % 60;
  const h = Math.floor(total / 3600);
  const ss = String(s).padStart(2, "0");
  return h > 0 ? `${sign}${h}:${String(m).padStart(2, "0")}:${ss}` : `${sign}${m}:${ss}`;
}

// Tick spacings a human reads as round: whole seconds, then minutes, then hours.
const STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];

/** The round step (seconds) that puts about `count` ticks between min and max. */
export function tickStep(min: number, max: number, count = 6): number {
  const span = max - min;
  if (!(span > 0) || count < 1) return 1;
  const raw = span / count;
  return STEPS.find((s) => s >= raw) ?? Math.ceil(raw / 86400) * 86400;
}

/** Tick positions at multiples of a round step within [min, max]. */
export function timeTicks(min: number, max: number, count = 6): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max) || max < min) return [];
  if (max === min) return [min];
  const step = tickStep(min, max, count);
  const out: number[] = [];
  for (let t = Math.ceil(min / step) * step; t <= max + 1e-9; t += step) out.push(t);
  return out;
}
