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
  undecidedText,
  verdictLabel,
} from "./format";

const cell = (over: Partial<Cell>): Cell => ({
  n: 3,
  median: 100,
  min: 90,
  max: 110,
  values: [90, 100, 110],
  verdict: "not_decided",
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
    // A -2.6% these runs cannot tell from noise is not painted as a loss, nor an equivalent one.
    expect(changeTone(cell({ verdict: "not_decided", delta_pct: -2.6 }), "higher_is_better")).toBe("noise");
    expect(changeTone(cell({ verdict: "equivalent", delta_pct: 0.4 }), "higher_is_better")).toBe("noise");
  });

  it("never paints an undecided single run as a win or a loss", () => {
    const up = cell({ n: 1, verdict: "not_decided", delta_pct: 171 });
    expect(changeTone(up, "lower_is_better")).toBe("noise");
    expect(changeTone(up, "higher_is_better")).toBe("noise");
  });

  it("says what would decide a not-decided change", () => {
    const c = cell({ verdict: "not_decided", detectable_pct: 9.84, runs_needed: 14 });
    expect(undecidedText(c, 3)).toBe(
      "3 vs 3 runs detect changes of about ±9.8% here; about 14 more runs a side would decide a change of this size.",
    );
    expect(undecidedText(cell({ verdict: "not_decided", detectable_pct: 4, runs_needed: null }), 3)).toMatch(
      /no practical number of runs/,
    );
    expect(
      undecidedText(
        cell({ n: 1, verdict: "not_decided", undecided_reason: "one run on a side gives no noise estimate" }),
        3,
      ),
    ).toBe("Not decided: one run on a side gives no noise estimate.");
    expect(undecidedText(cell({ verdict: "worse" }), 3)).toBeNull();
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
    expect(verdictLabel("not_decided")).toBe("not decided");
    expect(verdictLabel("equivalent")).toBe("equivalent");
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
    expect(formatInterval(cell({ n: 1, verdict: "not_decided" }), "ms", 0.95)).toMatch(/no noise estimate/);
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
