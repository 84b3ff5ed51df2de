import { describe, expect, it } from "vitest";
import { runStyle } from "./families";
import { alignSeries } from "./OverlayChart";
import { groupValues, prepareLines, valuesAt } from "./overlay-math";

describe("alignSeries", () => {
  it("puts runs sampled at different offsets on one time grid", () => {
    const rows = alignSeries([
      {
        id: "a",
        label: "a",
        color: "#000",
        points: [
          { t: 1, v: 10 },
          { t: 2, v: 20 },
        ],
      },
      {
        id: "b",
        label: "b",
        color: "#000",
        points: [
          { t: 1.2, v: 5 },
          { t: 2.1, v: 7 },
        ],
      },
    ]);
    expect(rows).toEqual([
      { t: 1, a: 10, b: 5 },
      { t: 2, a: 20, b: 7 },
    ]);
  });

  it("caps the rows at about the resolution, averaging within a bucket", () => {
    const points = Array.from({ length: 3000 }, (_, i) => ({ t: i, v: i % 2 }));
    const rows = alignSeries([{ id: "a", label: "a", color: "#000", points }], 600);
    expect(rows.length).toBeLessThanOrEqual(601);
    // A bucket of 5 alternating 0/1 samples averages to 0.4 or 0.6, never a spike of 1.
    expect(rows[1]?.a).toBeGreaterThanOrEqual(0.4);
    expect(rows[1]?.a).toBeLessThanOrEqual(0.6);
  });
});

describe("runStyle", () => {
  it("keeps an experiment's hue and tells runs apart by shade and dash", () => {
    const [r1, r2, r3] = [0, 1, 2].map((r) => runStyle(1, r));
    expect(r1?.color?.toLowerCase()).toBe("#e69f00");
    expect(new Set([r1?.color, r2?.color, r3?.color]).size).toBe(3);
    expect(new Set([r1?.dash, r2?.dash, r3?.dash]).size).toBe(3);
    expect(runStyle(0, 0).color).not.toBe(r1?.color);
  });
});

describe("one tooltip row per experiment", () => {
  // Two experiments of three runs each, every run sampling at its own offset (as real agents do);
  // run c3 stops early and a2 samples every 2 s.
  const run = (id: string, group: string, start: number, step: number, values: number[]) => ({
    id,
    label: `${group} · ${id}`,
    group,
    color: group === "a" ? "#111" : "#222",
    points: values.map((v, i) => ({ t: start + i * step, v })),
  });
  const lines = prepareLines([
    run("a1", "a", 0, 1, [10, 11, 12, 13, 14]),
    run("a2", "a", 0.4, 2, [20, 22, 24]),
    run("a3", "a", 0.7, 1, [5, 6, 7, 8, 9]),
    run("c1", "c", 0.2, 1, [100, 100, 100, 100, 100]),
    run("c2", "c", 0.9, 1, [300, 300, 300, 300, 300]),
    run("c3", "c", 0.5, 1, [200, 200]),
  ]);

  it("reads each run at its own nearest sample", () => {
    const at2 = valuesAt(lines, 2);
    expect(Object.fromEntries(at2.map((x) => [x.id, x.value]))).toEqual({
      a1: 12, // t=2
      a2: 22, // t=2.4
      a3: 6, // t=1.7
      c1: 100, // t=2.2
      c2: 300, // t=1.9
      c3: 200, // t=1.5, its last sample, within its 1 s spacing
    });
    // At t=4 run c3 has stopped: it is left out rather than read from 2.5 s away.
    expect(valuesAt(lines, 4).map((x) => x.id)).toEqual(["a1", "a2", "a3", "c1", "c2"]);
  });

  it("gives the median of the runs and their range, experiments in order", () => {
    expect(groupValues(valuesAt(lines, 2))).toEqual([
      { group: "a", color: "#111", median: 12, min: 6, max: 22, n: 3 },
      { group: "c", color: "#222", median: 200, min: 100, max: 300, n: 3 },
    ]);
    // Two runs left: the median is their mean.
    expect(groupValues(valuesAt(lines, 4)).find((g) => g.group === "c")).toEqual({
      group: "c",
      color: "#222",
      median: 200,
      min: 100,
      max: 300,
      n: 2,
    });
  });

  it("widens the lookup to the chart's grid when that is coarser than the samples", () => {
    expect(valuesAt(lines, 8)).toEqual([]);
    expect(valuesAt(lines, 8, 5).map((x) => x.id)).toEqual(["a1", "a2", "a3", "c1", "c2"]);
  });
});
