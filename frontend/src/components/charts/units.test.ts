import { describe, expect, it } from "vitest";
import { withUnit } from "./MetricChart";

describe("chart values in the units the tool printed", () => {
  it("reads netqtop's byte rates in binary prefixes, as netqtop prints them", () => {
    // netqtop printed "350.16M" (350.16 × 1024² B/s); SI prefixes would say 367M
    expect(withUnit(350.16 * 1024 * 1024, "B/s")).toBe("350.2 MiB/s");
    expect(withUnit(1198.08, "B")).toBe("1.2 KiB");
  });

  it("keeps other units as they were", () => {
    expect(withUnit(12500, "/s")).toBe("12.5k /s");
    expect(withUnit(42, "%")).toBe("42%");
  });
});
