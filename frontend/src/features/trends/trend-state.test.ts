import { describe, expect, it } from "vitest";
import type { TrendMetric } from "./api";
import { chosenAlpha, chosenMetric, compareHref, groupMetrics, withAlpha, withMetric } from "./trend-state";

const metric = (key: string, kind = "wrk"): TrendMetric => ({
  key,
  label: key,
  unit: "",
  kind,
  higher_is_better: null,
  runs: 3,
});

describe("trend view state", () => {
  it("reads the metric from the URL, else requests/sec, else the first metric", () => {
    const metrics = [metric("vmstat.sy@proxy", "series"), metric("wrk.requests_per_sec")];
    expect(chosenMetric(new URLSearchParams("metric=vmstat.sy@proxy"), metrics)).toBe("vmstat.sy@proxy");
    expect(chosenMetric(new URLSearchParams(""), metrics)).toBe("wrk.requests_per_sec");
    expect(chosenMetric(new URLSearchParams(""), [metric("vmstat.sy@proxy", "series")])).toBe(
      "vmstat.sy@proxy",
    );
    expect(chosenMetric(new URLSearchParams(""), undefined)).toBe("");
  });

  it("keeps the default out of the URL and other params in it", () => {
    expect(withMetric(new URLSearchParams("x=1"), "wrk.requests_per_sec").toString()).toBe("x=1");
    expect(withMetric(new URLSearchParams("x=1"), "vmstat.sy@proxy").toString()).toBe(
      "x=1&metric=vmstat.sy%40proxy",
    );
  });

  it("keeps the change-point sensitivity in the URL, the default left out, odd values ignored", () => {
    expect(chosenAlpha(new URLSearchParams("alpha=0.01"))).toBe(0.01);
    expect(chosenAlpha(new URLSearchParams(""))).toBe(0.05);
    expect(chosenAlpha(new URLSearchParams("alpha=0.5"))).toBe(0.05);
    expect(withAlpha(new URLSearchParams("metric=m"), 0.1).toString()).toBe("metric=m&alpha=0.1");
    expect(withAlpha(new URLSearchParams("metric=m&alpha=0.1"), 0.05).toString()).toBe("metric=m");
  });

  it("links a change to the comparison of the experiment before and after, by id", () => {
    expect(compareHref("demo", 6, 7)).toBe("/p/demo/compare?e=6&e=7&base=6");
  });

  it("groups metrics by kind in server order", () => {
    const groups = groupMetrics([metric("wrk.a"), metric("vmstat.sy@p", "series"), metric("wrk.b")]);
    expect(groups.map((g) => [g.label, g.metrics.map((m) => m.key)])).toEqual([
      ["Load test (wrk)", ["wrk.a", "wrk.b"]],
      ["Telemetry (steady-state mean)", ["vmstat.sy@p"]],
    ]);
  });
});
