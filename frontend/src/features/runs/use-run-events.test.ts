import { describe, expect, it } from "vitest";
import type { RunDetail } from "./api";
import { applySnapshot } from "./use-run-events";

const stream = (id: number, lines: number) => ({
  id,
  host: "proxy-1",
  role: "proxy",
  source: "vmstat",
  name: `s${id}`,
  lines,
  samples: lines,
  dropped: 0,
  state: "open",
  error: null,
  closed_at: null,
});

describe("applySnapshot", () => {
  it("moves status and stream counters at once, leaving unknown streams for the refetch", () => {
    const run = {
      status: "running",
      status_reasons: [],
      streams: [stream(1, 5), stream(2, 0)],
    } as unknown as RunDetail;
    const next = applySnapshot(run, {
      status: "partial",
      status_reasons: ["proxy/vmstat: 3 lines dropped"],
      streams: [
        { id: 1, lines: 9, samples: 8, state: "closed" },
        { id: 3, lines: 1, samples: 0, state: "open" },
      ],
    });
    expect(next.status).toBe("partial");
    expect(next.status_reasons).toEqual(["proxy/vmstat: 3 lines dropped"]);
    expect(next.streams.map((s) => [s.id, s.lines, s.state])).toEqual([
      [1, 9, "closed"],
      [2, 0, "open"],
    ]);
    expect(run.streams[0]?.lines).toBe(5);
  });
});
