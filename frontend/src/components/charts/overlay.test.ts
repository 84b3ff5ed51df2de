import { describe, expect, it } from "vitest";
import { runStyle } from "./families";
import { alignSeries } from "./OverlayChart";

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
