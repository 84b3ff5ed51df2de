import { describe, expect, it } from "vitest";
import { formatRange, parseRange, rangeFrom, writeRange } from "./time-range";

describe("time range in the URL", () => {
  it("reads what it writes", () => {
    const r = { start: 12.34, end: 48 };
    expect(formatRange(r)).toBe("12.3-48");
    expect(parseRange(formatRange(r))).toEqual({ start: 12.3, end: 48 });
  });

  it("accepts a range that starts before the load (collectors start early)", () => {
    expect(parseRange("-2-30")).toEqual({ start: -2, end: 30 });
  });

  it("refuses reversed, empty, too short and malformed ranges", () => {
    for (const raw of ["48-12", "", null, "10-10.2", "a-b", "10", "1e3-2e3", "NaN-5"]) {
      expect(parseRange(raw)).toBeNull();
    }
  });

  it("orders a drag from right to left and ignores a click", () => {
    expect(rangeFrom(40, 10)).toEqual({ start: 10, end: 40 });
    expect(rangeFrom(10, 10.1)).toBeNull();
  });

  it("keeps the other parameters and removes t on reset", () => {
    const p = new URLSearchParams("m=sy&t=1-2");
    expect(writeRange(p, { start: 5, end: 9 }).toString()).toBe("m=sy&t=5-9");
    expect(writeRange(p, null).toString()).toBe("m=sy");
  });
});
