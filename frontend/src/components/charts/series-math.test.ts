import { describe, expect, it } from "vitest";
import {
  medianStep,
  nearestIndex,
  pixelToTime,
  singleSpan,
  timeToPixel,
  valueAt,
  windowStats,
  withGaps,
} from "./series-math";

describe("withGaps", () => {
  it("keeps regular samples as they are", () => {
    expect(withGaps([0, 1, 2], [5, 6, 7])).toEqual([
      { t: 0, v: 5 },
      { t: 1, v: 6 },
      { t: 2, v: 7 },
    ]);
  });
  it("breaks the line where samples stop for a while", () => {
    const pts = withGaps([0, 1, 2, 3, 10, 11], [1, 1, 1, 1, 2, 2]);
    expect(pts.map((p) => p.v)).toEqual([1, 1, 1, 1, null, 2, 2]);
    expect(pts[4]?.t).toBe(6.5);
  });
  it("turns non-finite values into breaks", () => {
    expect(withGaps([0, 1], [Number.NaN, 1]).map((p) => p.v)).toEqual([null, 1]);
  });
});

describe("values under the cursor", () => {
  const t = [0, 1, 2, 3, 4];
  const v = [10, 11, 12, 13, 14];
  it("finds the nearest sample", () => {
    expect(nearestIndex(t, 2.4)).toBe(2);
    expect(nearestIndex(t, 2.6)).toBe(3);
    expect(nearestIndex(t, -5)).toBe(0);
    expect(nearestIndex(t, 99)).toBe(4);
    expect(nearestIndex([], 1)).toBe(-1);
  });
  it("says nothing outside the series or in a gap", () => {
    expect(valueAt(t, v, 2.4)).toBe(12);
    expect(valueAt(t, v, 9)).toBeNull();
    expect(valueAt([0, 1, 2, 20], [1, 2, 3, 4], 11)).toBeNull();
  });
  it("measures the usual spacing", () => {
    expect(medianStep([0, 1, 2, 10])).toBe(1);
    expect(medianStep([5])).toBeNull();
  });
});

describe("pixel <-> time", () => {
  it("maps the plot area onto the domain and back", () => {
    expect(pixelToTime(50, 50, 200, [0, 100])).toBe(0);
    expect(pixelToTime(150, 50, 200, [0, 100])).toBe(50);
    expect(pixelToTime(400, 50, 200, [0, 100])).toBe(100);
    expect(timeToPixel(50, 50, 200, [0, 100])).toBe(150);
    expect(timeToPixel(101, 50, 200, [0, 100])).toBeNull();
  });
});

describe("singleSpan", () => {
  it("draws one netqtop interval as a segment over that interval, not a lone point", () => {
    // one 10 s interval printed at t=10 on a 0-10 s axis: flat from 0 to 10
    expect(singleSpan([10], [367166259], null, [0, 10])).toEqual([
      { t: 0, v: 367166259 },
      { t: 10, v: 367166259 },
    ]);
    // beside 1 s vmstat samples it spans one step
    expect(singleSpan([5], [3], 1, [0, 10])).toEqual([
      { t: 4, v: 3 },
      { t: 5, v: 3 },
    ]);
  });

  it("leaves series of several samples to the line", () => {
    expect(singleSpan([1, 2], [3, 4], 1, [0, 10])).toBeNull();
  });
});

describe("windowStats", () => {
  const t = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const v = [50, 1, 2, 90, 4, 8, 6, Number.NaN, 3, 70];
  it("summarises the whole run when the window covers it", () => {
    // Finite values sorted: 1 2 3 4 6 8 50 70 90 -> the fifth is the median.
    expect(windowStats(t, v, [0, 9])).toEqual({ median: 6, min: 1, max: 90, n: 9 });
  });
  it("summarises only the samples inside a zoomed window, its ends included", () => {
    // t 2..6: 2 90 4 8 6 -> sorted 2 4 6 8 90.
    expect(windowStats(t, v, [2, 6])).toEqual({ median: 6, min: 2, max: 90, n: 5 });
    // t 4..8 without the NaN at 7: 4 8 6 3 -> even count, the mean of the middle two.
    expect(windowStats(t, v, [3.5, 8.2])).toEqual({ median: 5, min: 3, max: 8, n: 4 });
  });
  it("says nothing for a window between samples or outside the series", () => {
    expect(windowStats(t, v, [7, 7.5])).toBeNull();
    expect(windowStats(t, v, [20, 30])).toBeNull();
    expect(windowStats([], [], [0, 1])).toBeNull();
  });
});
