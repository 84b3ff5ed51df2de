import { describe, expect, it } from "vitest";
import {
  countOf,
  deltaVerdict,
  formatBytes,
  formatCompact,
  formatDateTime,
  formatDeltaPct,
  formatDuration,
  formatFixed,
  formatInt,
  formatMs,
  formatPercent,
  formatRelative,
  nounFor,
  percentChange,
  secondsBetween,
} from "./format";

describe("numbers", () => {
  it("formats integers with thousands separators and a dash for missing values", () => {
    expect(formatInt(12722.92)).toBe("12,723");
    expect(formatInt(0)).toBe("0");
    expect(formatInt(null)).toBe("—");
    expect(formatInt(Number.NaN)).toBe("—");
  });

  it("formats fixed decimals like wrk prints them", () => {
    expect(formatFixed(12722.918)).toBe("12,722.92");
    expect(formatFixed(3.1, 1)).toBe("3.1");
    expect(formatFixed(undefined)).toBe("—");
  });

  it("compacts to three significant digits with a unit suffix", () => {
    expect(formatCompact(12500)).toBe("12.5k");
    expect(formatCompact(6512.3)).toBe("6.51k");
    expect(formatCompact(950)).toBe("950");
    expect(formatCompact(999.9)).toBe("1k");
    expect(formatCompact(1_230_000)).toBe("1.23M");
    expect(formatCompact(12)).toBe("12");
    expect(formatCompact(0.5)).toBe("0.5");
    expect(formatCompact(0)).toBe("0");
    expect(formatCompact(-4200)).toBe("-4.2k");
  });
});

describe("latency and durations", () => {
  it("scales milliseconds to what a human reads", () => {
    expect(formatMs(0.42)).toBe("0.42 ms");
    expect(formatMs(4.213)).toBe("4.21 ms");
    expect(formatMs(37.2)).toBe("37.2 ms");
    expect(formatMs(372.4)).toBe("372 ms");
    expect(formatMs(1240)).toBe("1.24 s");
    expect(formatMs(12400)).toBe("12.4 s");
    expect(formatMs(0)).toBe("0 ms");
    expect(formatMs(null)).toBe("—");
  });

  it("formats elapsed seconds", () => {
    expect(formatDuration(2.5)).toBe("2.5s");
    expect(formatDuration(45)).toBe("45s");
    expect(formatDuration(65)).toBe("1m 05s");
    expect(formatDuration(3725)).toBe("1h 02m");
    expect(formatDuration(3 * 86400 + 3600)).toBe("3d 01h");
    expect(formatDuration(-1)).toBe("—");
  });

  it("computes seconds between timestamps", () => {
    expect(secondsBetween("2026-01-01T00:00:00Z", "2026-01-01T00:01:00Z")).toBe(60);
    expect(secondsBetween("2026-01-01T00:00:00Z", null)).toBeNull();
  });
});

describe("percent and deltas", () => {
  it("formats percentages already in percent", () => {
    expect(formatPercent(48.71)).toBe("48.7%");
    expect(formatPercent(80, 0)).toBe("80%");
    expect(formatPercent(null)).toBe("—");
  });

  it("computes percent change against a baseline", () => {
    expect(percentChange(12500, 6500)).toBeCloseTo(-48);
    expect(percentChange(13.7, 37.2)).toBeCloseTo(171.53, 1);
    expect(percentChange(0, 5)).toBeNull();
    expect(percentChange(null, 5)).toBeNull();
  });

  it("writes signed changes the way a report does", () => {
    expect(formatDeltaPct(171.53)).toBe("+172%");
    expect(formatDeltaPct(-48.72)).toBe("-48.7%");
    expect(formatDeltaPct(0.4)).toBe("+0.4%");
    expect(formatDeltaPct(0.01)).toBe("±0%");
    expect(formatDeltaPct(null)).toBe("—");
  });

  it("judges a change by the metric's direction", () => {
    expect(deltaVerdict(10, "higher_is_better")).toBe("better");
    expect(deltaVerdict(10, "lower_is_better")).toBe("worse");
    expect(deltaVerdict(-48, "higher_is_better")).toBe("worse");
    expect(deltaVerdict(-20, "lower_is_better")).toBe("better");
    expect(deltaVerdict(0.01, "lower_is_better")).toBe("unchanged");
    expect(deltaVerdict(null, "lower_is_better")).toBe("unchanged");
  });
});

describe("bytes and dates", () => {
  it("formats sizes in binary units", () => {
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(1536)).toBe("1.5 KiB");
    expect(formatBytes(24_000_000 * 1024)).toBe("22.9 GiB");
  });

  it("formats an absolute local time", () => {
    const iso = new Date(2026, 10, 22, 14, 5).toISOString();
    expect(formatDateTime(iso)).toBe("2026-11-22 14:05");
    expect(formatDateTime("not a date")).toBe("—");
  });

  it("formats relative times", () => {
    const now = Date.parse("2026-11-22T12:00:00Z");
    expect(formatRelative("2026-11-22T11:59:50Z", now)).toBe("just now");
    expect(formatRelative("2026-11-22T11:55:00Z", now)).toBe("5 min ago");
    expect(formatRelative("2026-11-22T09:00:00Z", now)).toBe("3 h ago");
    expect(formatRelative("2026-11-10T12:00:00Z", now)).toBe("12 d ago");
    expect(formatRelative(null, now)).toBe("—");
  });
});

describe("counts", () => {
  it("writes the singular for one and the plural otherwise, with thousands separators", () => {
    expect(countOf(1, "experiment")).toBe("1 experiment");
    expect(countOf(0, "experiment")).toBe("0 experiments");
    expect(countOf(12000, "run")).toBe("12,000 runs");
    expect(countOf(1, "series", "series")).toBe("1 series");
    expect(nounFor(1, "run")).toBe("run");
    expect(nounFor(2, "run")).toBe("runs");
  });
});
