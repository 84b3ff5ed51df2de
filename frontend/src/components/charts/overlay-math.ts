// Pure helpers behind the overlay tooltip: many runs of a few experiments on one time axis read as one
// row per experiment (the median of its runs at the time under the pointer, and their range), with the
// runs themselves on demand. Runs sample at their own offsets, so each is read at its nearest sample.
import { medianOf, medianStep, valueAt } from "./series-math";

export interface OverlayLine {
  id: string;
  label: string;
  /** The experiment the line belongs to; lines without one are their own group. */
  group?: string;
  color: string;
  points: readonly { t: number; v: number }[];
}

/** A line ready for lookups: its times and values as sorted arrays, and its usual spacing. */
export interface PreparedLine {
  id: string;
  label: string;
  group: string;
  color: string;
  t: number[];
  v: number[];
  step: number;
}

export function prepareLines(lines: readonly OverlayLine[]): PreparedLine[] {
  return lines.map((l) => {
    const pts = [...l.points].sort((a, b) => a.t - b.t);
    const t = pts.map((p) => p.t);
    return {
      id: l.id,
      label: l.label,
      group: l.group ?? l.label,
      color: l.color,
      t,
      v: pts.map((p) => p.v),
      step: medianStep(t) ?? 1,
    };
  });
}

export interface LineValue {
  id: string;
  label: string;
  group: string;
  color: string;
  value: number;
}

/**
 * Each line's value at time x: its nearest sample within its own spacing or `tolerance`, whichever is
 * wider (the chart's grid may be coarser than the samples). Lines with no sample near x are left out.
 */
export function valuesAt(lines: readonly PreparedLine[], x: number, tolerance = 0): LineValue[] {
  const out: LineValue[] = [];
  for (const l of lines) {
    const value = valueAt(l.t, l.v, x, Math.max(l.step, tolerance));
    if (value !== null) out.push({ id: l.id, label: l.label, group: l.group, color: l.color, value });
  }
  return out;
}

export interface GroupValue {
  group: string;
  /** The colour of the group's first line (an experiment's hue). */
  color: string;
  median: number;
  min: number;
  max: number;
  /** Lines that had a value at x. */
  n: number;
}

/** One row per group, in the order groups first appear: the median of its lines' values and their range. */
export function groupValues(values: readonly LineValue[]): GroupValue[] {
  const groups = new Map<string, { color: string; values: number[] }>();
  for (const v of values) {
    const g = groups.get(v.group);
    if (g) g.values.push(v.value);
    else groups.set(v.group, { color: v.color, values: [v.value] });
  }
  return [...groups].map(([group, g]) => {
    const n = g.values.length;
    const median = medianOf(g.values) as number; // sorts g.values
    return { group, color: g.color, median, min: g.values[0] as number, max: g.values[n - 1] as number, n };
  });
}
