// Pure helpers behind the run charts: gaps, values under the cursor, pixel <-> time. Kept free of React
// and recharts so they are unit tested and the chart component stays about drawing.

export interface XY {
  t: number;
  v: number | null;
}

/** The median spacing of sorted time stamps, or null with fewer than two. */
export function medianStep(t: readonly number[]): number | null {
  if (t.length < 2) return null;
  const d: number[] = [];
  for (let i = 1; i < t.length; i++) {
    const a = t[i - 1] as number;
    const b = t[i] as number;
    if (b > a) d.push(b - a);
  }
  if (!d.length) return null;
  d.sort((a, b) => a - b);
  return d[Math.floor(d.length / 2)] ?? null;
}

/**
 * Points for a line, with a null inserted where samples stop for longer than `gapFactor` times the
 * usual spacing, so an agent outage shows as a break instead of a straight line across it.
 */
export function withGaps(t: readonly number[], v: readonly number[], gapFactor = 3): XY[] {
  const step = medianStep(t);
  const out: XY[] = [];
  for (let i = 0; i < t.length; i++) {
    const ti = t[i] as number;
    const vi = v[i];
    if (i > 0 && step !== null) {
      const prev = t[i - 1] as number;
      if (ti - prev > step * gapFactor) out.push({ t: (prev + ti) / 2, v: null });
    }
    out.push({ t: ti, v: typeof vi === "number" && Number.isFinite(vi) ? vi : null });
  }
  return out;
}

/** A series of one sample as a flat segment over the interval it summarises (vmstat, pidstat and
 * netqtop print averages over the interval that ends at the sample), `step` wide (the other series'
 * sampling step) or reaching back to the start of the axis; a lone point would draw nothing. */
export function singleSpan(
  t: readonly number[],
  v: readonly number[],
  step: number | null,
  domain: readonly [number, number],
): XY[] | null {
  if (t.length !== 1) return null;
  const t0 = t[0] as number;
  const v0 = typeof v[0] === "number" && Number.isFinite(v[0]) ? v[0] : null;
  const width = step ?? (t0 > domain[0] ? t0 - domain[0] : domain[1] - t0);
  if (!(width > 0)) return null;
  return t0 - width >= domain[0]
    ? [
        { t: t0 - width, v: v0 },
        { t: t0, v: v0 },
      ]
    : [
        { t: t0, v: v0 },
        { t: t0 + width, v: v0 },
      ];
}

/** Index of the time stamp nearest to x in sorted t (binary search), or -1 when t is empty. */
export function nearestIndex(t: readonly number[], x: number): number {
  if (!t.length) return -1;
  let lo = 0;
  let hi = t.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if ((t[mid] as number) <= x) lo = mid;
    else hi = mid;
  }
  const dl = Math.abs((t[lo] as number) - x);
  const dh = Math.abs((t[hi] as number) - x);
  return dh < dl ? hi : lo;
}

/**
 * The value a series had at time x: its nearest sample, if that sample is within `tolerance` seconds
 * (default: the series' own spacing), else null (the cursor is in a gap or outside the series).
 */
export function valueAt(
  t: readonly number[],
  v: readonly number[],
  x: number,
  tolerance?: number,
): number | null {
  const i = nearestIndex(t, x);
  if (i < 0) return null;
  const tol = tolerance ?? Math.max(medianStep(t) ?? 1, 1e-9);
  if (Math.abs((t[i] as number) - x) > tol) return null;
  const value = v[i];
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** The time under a pixel of the plot area, clamped to the domain. */
export function pixelToTime(
  px: number,
  left: number,
  width: number,
  domain: readonly [number, number],
): number {
  const [d0, d1] = domain;
  if (width <= 0 || d1 <= d0) return d0;
  const f = Math.min(1, Math.max(0, (px - left) / width));
  return d0 + f * (d1 - d0);
}

/** The pixel of a time inside the plot area, or null when it lies outside the domain. */
export function timeToPixel(
  t: number,
  left: number,
  width: number,
  domain: readonly [number, number],
): number | null {
  const [d0, d1] = domain;
  if (d1 <= d0 || t < d0 || t > d1) return null;
  return left + ((t - d0) / (d1 - d0)) * width;
}

/** What a legend says about a series over the time shown: the median and the range of its samples. */
export interface WindowStats {
  median: number;
  min: number;
  max: number;
  /** Samples inside the window. */
  n: number;
}

/** The median of values (sorted in place), or null when there are none. */
export function medianOf(values: number[]): number | null {
  if (!values.length) return null;
  values.sort((a, b) => a - b);
  const mid = values.length >> 1;
  return values.length % 2
    ? (values[mid] as number)
    : ((values[mid - 1] as number) + (values[mid] as number)) / 2;
}

/** The first index of sorted t at or after x (t.length when none is). */
function lowerBound(t: readonly number[], x: number): number {
  let lo = 0;
  let hi = t.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((t[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Median, min and max of the finite samples with start <= t <= end (t sorted), or null when the window
 * holds none: a zoomed chart's legend describes what is on screen, not the whole run.
 */
export function windowStats(
  t: readonly number[],
  v: readonly number[],
  window: readonly [number, number],
): WindowStats | null {
  const values: number[] = [];
  for (let i = lowerBound(t, window[0]); i < t.length && (t[i] as number) <= window[1]; i++) {
    const x = v[i];
    if (typeof x === "number" && Number.isFinite(x)) values.push(x);
  }
  const median = medianOf(values);
  if (median === null) return null;
  // Sorted by medianOf.
  return { median, min: values[0] as number, max: values[values.length - 1] as number, n: values.length };
}
