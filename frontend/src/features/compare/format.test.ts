import { describe, expect, it } from "vitest";
import type { Cell } from "./api";
import {
  changeArrow,
  changeTone,
  formatChange,
  formatInterval,
  formatOffset,
  formatSpread,
  formatValue,
  parseOffset,
  toneClass,
  verdictLabel,
} from "./format";

const cell = (over: Partial<Cell>): Cell => ({
  n: 3,
  median: 100,
  min: 90,
  max: 110,
  values: [90, 100, 110],
  verdict: "within_noise",
  flags: [],
  ...over,
});

describe("values and changes", () => {
  it("writes values the way the write-ups do", () => {
    expect(formatValue(37.2, "ms")).toBe("37.20ms");
    expect(formatValue(12722.92, "req/s")).toBe("12,722.92");
    expect(formatValue(10.5 * 1024 * 1024, "B/s")).toBe("10.5 MiB/s");
    expect(formatValue(127305, "requests")).toBe("127,305");
    expect(formatValue(81.04, "%")).toBe("81.0%");
    expect(formatValue(null, "ms")).toBe("—");
  });

  it("formats the change against the baseline", () => {
    expect(formatChange(171.3)).toBe("(+171%)");
    expect(formatChange(-48.71)).toBe("(-48.7%)");
    expect(formatChange(0.01)).toBe("(±0%)");
    expect(formatChange(null)).toBe("");
  });

  it("gives min–max only when there are repeats", () => {
    expect(formatSpread(cell({ min: 5627, max: 7004.94 }), "req/s")).toBe("5,627.00–7,004.94");
    expect(formatSpread(cell({ n: 1 }), "req/s")).toBeNull();
  });
});

describe("tone: good or bad for this metric", () => {
  it("follows the verdict when there are repeats", () => {
    expect(changeTone(cell({ verdict: "worse", delta_pct: -47.5 }), "higher_is_better")).toBe("worse");
    expect(changeTone(cell({ verdict: "better", delta_pct: -30 }), "lower_is_better")).toBe("better");
    // A -2.6% inside the noise is not painted as a loss.
    expect(changeTone(cell({ verdict: "within_noise", delta_pct: -2.6 }), "higher_is_better")).toBe("noise");
  });

  it("follows the metric's direction with a single run", () => {
    const up = cell({ n: 1, verdict: "single_run", delta_pct: 171 });
    expect(changeTone(up, "lower_is_better")).toBe("worse");
    expect(changeTone(up, "higher_is_better")).toBe("better");
    expect(changeTone(cell({ verdict: "single_run", delta_pct: 0 }), "higher_is_better")).toBe("neutral");
  });

  it("never colours metrics without a good direction", () => {
    expect(changeTone(cell({ verdict: "increased", delta_pct: 300 }), "neutral")).toBe("neutral");
  });

  it("maps tones to classes and words, with arrows for the eye", () => {
    expect(toneClass("better")).toBe("delta-better");
    expect(toneClass("worse")).toBe("delta-worse");
    expect(toneClass("noise")).toBe("delta-unchanged");
    expect(changeArrow(171)).toBe("↑");
    expect(changeArrow(-48.7)).toBe("↓");
    expect(changeArrow(0)).toBe("");
    expect(verdictLabel("single_run")).toBe("1 run: no noise estimate");
    expect(verdictLabel("within_noise")).toBe("within noise");
  });
});

describe("interval tooltip", () => {
  it("states the interval in percent and in the metric's unit", () => {
    const c = cell({
      verdict: "worse",
      delta_pct: -47.5,
      ci_low_pct: -56.3,
      ci_high_pct: -41.5,
      ci_low: -7262.53,
      ci_high: -4971.21,
    });
    expect(formatInterval(c, "req/s", 0.95)).toBe(
      "95% CI of the change: -56.3% to -41.5% (-7,262.53 to -4,971.21).",
    );
    expect(formatInterval(cell({ verdict: "single_run" }), "ms", 0.95)).toMatch(/no noise estimate/);
  });
});

describe("time offsets for time-range notes", () => {
  it("reads and writes m:ss", () => {
    expect(formatOffset(42)).toBe("0:42");
    expect(formatOffset(125.4)).toBe("2:05");
    expect(parseOffset("0:42")).toBe(42);
    expect(parseOffset("42")).toBe(42);
    expect(parseOffset("1:02:03")).toBe(3723);
    expect(parseOffset("0:99")).toBeNull();
    expect(parseOffset("soon")).toBeNull();
    expect(parseOffset("")).toBeNull();
  });
});
