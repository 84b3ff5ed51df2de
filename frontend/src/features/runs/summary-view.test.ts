import { describe, expect, it } from "vitest";
import { summaryBlocks } from "./summary-view";

describe("summaryBlocks", () => {
  it("lays out a wrk summary: scalars first, then flat groups; empty lists are skipped", () => {
    const blocks = summaryBlocks({
      requests: 56497,
      requests_per_sec: 5627.0,
      warnings: [],
      latency_percentiles_ms: { "50": 13.52, "99": 178.57 },
    });
    expect(blocks).toEqual([
      {
        type: "fields",
        key: "",
        fields: [
          ["requests", 56497],
          ["requests_per_sec", 5627],
        ],
      },
      {
        type: "fields",
        key: "latency_percentiles_ms",
        fields: [
          ["50", 13.52],
          ["99", 178.57],
        ],
      },
    ]);
  });

  it("turns lists of records into tables without all-empty columns", () => {
    const [block] = summaryBlocks({
      syscalls: [
        { syscall: "writev", calls: 49123, tid: null },
        { syscall: "readv", calls: 31776, tid: null, errors: 2 },
      ],
    });
    expect(block).toEqual({
      type: "table",
      key: "syscalls",
      columns: ["syscall", "calls", "errors"],
      rows: [
        { syscall: "writev", calls: 49123, tid: null },
        { syscall: "readv", calls: 31776, tid: null, errors: 2 },
      ],
    });
  });

  it("joins lists of plain values into one field", () => {
    expect(summaryBlocks({ columns: ["calls", "syscall"] })).toEqual([
      { type: "fields", key: "", fields: [["columns", "calls, syscall"]] },
    ]);
  });

  it("falls back to JSON for deeper shapes", () => {
    expect(summaryBlocks({ x: { a: { b: 1 } } })).toEqual([
      { type: "json", key: "x", value: { a: { b: 1 } } },
    ]);
  });
});
