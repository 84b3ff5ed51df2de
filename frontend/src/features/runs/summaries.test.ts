import { describe, expect, it } from "vitest";
import { pidstatView, plannedDurationS, sortSyscalls, straceView, wrkView } from "./summaries";

describe("wrkView", () => {
  it("reads the parsers' wrk JSON, percentiles in order", () => {
    const v = wrkView({
      requests_per_sec: 5627.0,
      requests: 56497,
      transfer_per_sec_bytes: 706090106.88,
      latency_ms: { avg: 25.61, stdev: 35.02, max: 486.52, within_stdev_pct: 90.2 },
      latency_percentiles_ms: { "99": 178.57, "50": 13.52, "99.9": 300, "75": 26.26, "90": 59.64 },
      socket_errors: { connect: 0, read: 3, write: 0, timeout: 12 },
      non_2xx_3xx: 0,
    });
    expect(v.rps).toBe(5627);
    expect(v.percentiles.map(([p]) => p)).toEqual(["50", "75", "90", "99", "99.9"]);
    expect(v.latency.max).toBe(486.52);
    expect(v.socketErrors.timeout).toBe(12);
  });
  it("gives nulls for a truncated paste instead of throwing", () => {
    const v = wrkView({ latency_ms: null, socket_errors: "?" });
    expect(v.rps).toBeNull();
    expect(v.latency.avg).toBeNull();
    expect(v.percentiles).toEqual([]);
  });
});

describe("plannedDurationS", () => {
  it("reads wrk's -d in any spelling", () => {
    expect(plannedDurationS("wrk -c 500 -t 4 -d 60s --latency http://proxy:8080/")).toBe(60);
    expect(plannedDurationS("stdbuf -oL /usr/bin/wrk -d2m http://x/")).toBe(120);
    expect(plannedDurationS("wrk2 --duration=30 -R 1000 http://x/")).toBe(30);
    expect(plannedDurationS("wrk --duration 1h http://x/")).toBe(3600);
  });
  it("uses wrk's default of 10 s, and knows nothing of other tools", () => {
    expect(plannedDurationS("wrk -c 10 http://x/")).toBe(10);
    expect(plannedDurationS("ab -n 1000 http://x/")).toBeNull();
    expect(plannedDurationS("")).toBeNull();
    expect(plannedDurationS("wrk -d forever http://x/")).toBeNull();
  });
});

describe("strace -c", () => {
  const { rows, total } = straceView({
    syscalls: [
      { syscall: "readv", calls: 31776, errors: 0, seconds: 0.265774, usecs_per_call: 8, pct_time: 22.03 },
      { syscall: "writev", calls: 49123, errors: 0, seconds: 0.848793, usecs_per_call: 17, pct_time: 70.35 },
      { syscall: "brk", calls: 3, errors: null, seconds: 0.000038, usecs_per_call: 12, pct_time: 0 },
    ],
    total: { calls: 80902, errors: 0, seconds: 1.1 },
  });
  it("sorts by any column, numbers highest first when asked", () => {
    expect(sortSyscalls(rows, "seconds", "desc").map((r) => r.syscall)).toEqual(["writev", "readv", "brk"]);
    expect(sortSyscalls(rows, "calls", "asc").map((r) => r.syscall)).toEqual(["brk", "readv", "writev"]);
    expect(sortSyscalls(rows, "syscall", "asc").map((r) => r.syscall)).toEqual(["brk", "readv", "writev"]);
    expect(sortSyscalls(rows, "errors", "desc").map((r) => r.syscall)).toEqual(["readv", "writev", "brk"]);
    expect(total?.calls).toBe(80902);
  });
});

describe("pidstat averages", () => {
  it("keeps the columns some process has and puts the busiest first", () => {
    const v = pidstatView({
      averages: [
        { command: "nginx", pid: 794, cpu_pct: 26.1, system_pct: 22.3, rss_kb: null },
        { command: "nginx", pid: 821, cpu_pct: 51.0, system_pct: 44.1, rss_kb: null },
      ],
    });
    expect(v.columns.map((c) => c.key)).toEqual(["system_pct", "cpu_pct"]);
    expect(v.rows.map((r) => r.pid)).toEqual([821, 794]);
  });
});
