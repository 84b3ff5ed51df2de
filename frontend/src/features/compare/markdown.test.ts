import { describe, expect, it } from "vitest";
import { verdictLabel } from "./format";
import { comparisonMarkdown, mdEscape } from "./markdown";

const reply = {
  baseline: "direct",
  experiments: ["direct", "default"],
  columns: [
    { id: 1, name: "direct", is_baseline: true, runs: [{}, {}, {}] },
    { id: 2, name: "default", is_baseline: false, runs: [{}] },
  ],
  results: [
    {
      key: "wrk.requests_per_sec",
      label: "Requests/sec",
      unit: "req/s",
      direction: "higher_is_better",
      cells: {
        direct: {
          n: 3,
          median: 12789.39,
          min: 1,
          max: 2,
          values: [],
          verdict: "equivalent",
          flags: ["steal"],
        },
        default: {
          n: 1,
          median: 6713.8,
          min: 1,
          max: 2,
          values: [],
          delta_pct: -47.5,
          verdict: "not_decided",
          undecided_reason: "one run on a side gives no noise estimate",
          flags: [],
        },
      },
    },
    {
      key: "wrk.latency_percentiles_ms.99",
      label: "p99 latency",
      unit: "ms",
      direction: "lower_is_better",
      cells: {
        direct: { n: 3, median: 13.72, min: 1, max: 2, values: [], verdict: "equivalent", flags: [] },
        default: {
          n: 1,
          median: 37.2,
          min: 1,
          max: 2,
          values: [],
          delta_pct: 171.1,
          verdict: "worse",
          flags: [],
        },
      },
    },
  ],
  method: {
    name: "Welch's t-test on log values, with a TOST equivalence test",
    confidence: 0.95,
    alpha: 0.05,
    power: 0.8,
    detail: "",
  },
  validity: { summary: ["direct / run 1: CPU steal 11.2% on proxy (vmstat st)"], flagged_runs: 1 },
  changes: [
    {
      experiment: "default",
      baseline: "direct",
      run_id: null,
      baseline_run_id: null,
      files: [],
      knob_changes: [
        {
          component: "nginx",
          knob: "proxy_buffers",
          context: "http",
          before: "8 4k",
          after: "4 128k",
          file: "nginx.conf",
        },
      ],
    },
  ],
} as unknown as Parameters<typeof comparisonMarkdown>[0];

describe("comparisonMarkdown", () => {
  it("builds the table engineers paste into a pull request", () => {
    const md = comparisonMarkdown(reply, "https://perflab.example/c/abc123");
    const lines = md.split("\n");
    expect(lines[0]).toBe("| metric | direct (baseline, 3 runs) | default (1 run) |");
    expect(lines[1]).toBe("|---|---:|---:|");
    expect(lines[2]).toBe(
      "| Requests/sec | 12,789.39 ⚠ | 6,713.80 (-47.5%, ? not decided: one run on a side gives no noise estimate) |",
    );
    expect(lines[3]).toBe("| p99 latency | 13.72ms | 37.20ms (+171%, ❌ worse) |");
    expect(md).toContain("change against **direct**; verdicts from Welch's t-test on log values");
    expect(md).toContain("at a 5% false-positive rate");
    expect(md).toContain("- direct / run 1: CPU steal 11.2% on proxy (vmstat st)");
    expect(md).toContain("- default: `proxy_buffers` 8 4k -> 4 128k");
    expect(md.trimEnd().endsWith("[Open this comparison in perflab](https://perflab.example/c/abc123)")).toBe(
      true,
    );
  });

  it("says how many runs would decide a not-decided change", () => {
    const undecided = structuredClone(reply);
    const cell = undecided.results[0]?.cells.default;
    if (!cell) throw new Error("fixture has a default cell");
    Object.assign(cell, { n: 3, detectable_pct: 9.84, runs_needed: 14 });
    const md = comparisonMarkdown(undecided);
    expect(md.split("\n")[2]).toContain(
      "(-47.5%, ? not decided: 3 vs 3 runs detect about ±9.8%; ~14 more a side would decide)",
    );
  });

  it("lists syscalls per request, with the window's calls beside", () => {
    // writev of the capture's proxy (strace -c medians): direct 13,302 calls at 4.00 a request, default
    // 58,738 at 8.51; a table without recvfrom says its requests are unknown.
    const cell = (calls: number, perReq: number | null, delta: number | null, verdict: string) => ({
      n: 3,
      calls,
      calls_per_request: perReq,
      calls_per_request_delta_pct: delta,
      calls_per_request_verdict: verdict,
    });
    const md = comparisonMarkdown({
      ...reply,
      syscalls: [
        {
          role: "proxy",
          process: "nginx",
          totals: {},
          rows: [
            {
              syscall: "writev",
              change_score: 0.5,
              summary: {},
              cells: {
                direct: cell(13302, 4, 0, "equivalent"),
                default: cell(58738, 8.512, 112.8, "increased"),
              },
            },
            {
              syscall: "brk",
              change_score: 0,
              summary: {},
              cells: { direct: cell(3, null, null, "no_data"), default: cell(3, null, null, "not_decided") },
            },
          ],
        },
      ],
    } as unknown as Parameters<typeof comparisonMarkdown>[0]);
    expect(md).toContain("Syscalls per request, proxy · nginx (strace -c; calls/req");
    expect(md).toContain(
      `| writev | 4.00 calls/req (13,302 calls) | 8.51 calls/req (58,738 calls) +113% ${verdictLabel("increased")} |`,
    );
    expect(md).toContain("| brk | requests unknown (3 calls) | requests unknown (3 calls) |");
  });

  it("keeps names inert and inside their cell", () => {
    expect(mdEscape("a|b <img src=x onerror=alert(1)>\nx")).toBe(
      "a\\|b &lt;img src=x onerror=alert(1)&gt; x",
    );
  });
});
