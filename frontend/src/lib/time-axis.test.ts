import { describe, expect, it } from "vitest";
import { formatClock, tickStep, timeTicks } from "./time-axis";

describe("formatClock", () => {
  it("shows minutes and zero-padded seconds", () => {
    expect(formatClock(0)).toBe("0:00");
    expect(formatClock(5)).toBe("0:05");
    expect(formatClock(59.9)).toBe("0:59");
    expect(formatClock(65)).toBe("1:05");
    expect(formatClock(750)).toBe("12:30");
  });
  it("adds hours past an hour", () => {
    expect(formatClock(3600)).toBe("1:00:00");
    expect(formatClock(3723)).toBe("1:02:03");
  });
  it("keeps a sign for times before the start, and a dash for nothing", () => {
    expect(formatClock(-5)).toBe("-0:05");
    expect(formatClock(null)).toBe("—");
    expect(formatClock(Number.NaN)).toBe("—");
  });
});

describe("timeTicks", () => {
  it("uses round steps", () => {
    expect(tickStep(0, 10)).toBe(2);
    expect(tickStep(0, 60)).toBe(10);
    expect(tickStep(0, 600)).toBe(120);
    expect(tickStep(0, 3600 * 5)).toBe(3600);
  });
  it("places ticks on multiples of the step inside the range", () => {
    expect(timeTicks(0, 10)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(timeTicks(3, 61)).toEqual([10, 20, 30, 40, 50, 60]);
    expect(timeTicks(0, 0.5)).toEqual([0]);
  });
  it("handles empty and degenerate ranges", () => {
    expect(timeTicks(5, 5)).toEqual([5]);
    expect(timeTicks(5, 1)).toEqual([]);
    expect(timeTicks(Number.NaN, 1)).toEqual([]);
  });
});
