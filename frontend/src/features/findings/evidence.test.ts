import { describe, expect, it } from "vitest";
import type { Finding } from "./api";
import { decisionRationale, evidenceHref } from "./evidence";

const finding: Finding = {
  rule: "copy-bound-proxy",
  severity: "warning",
  experiment: "default",
  run_id: "r1",
  title: "sy is 85% and readv/writev take 92% of syscall time",
  evidence: [
    { kind: "syscall", label: "readv", value: "31,776 calls", ref: { syscall: "readv", role: "proxy" } },
    {
      kind: "series",
      label: "system CPU (vmstat sy)",
      value: "steady-state mean 85.4%",
      ref: { role: "proxy", source: "vmstat", metric: "sy", key: "sy" },
    },
    { kind: "sysctl", label: "net.core.somaxconn", value: "4096", ref: { sysctl: "net.core.somaxconn" } },
  ],
  suggestion: { component: "nginx", knob: "proxy_buffers", from: "8 4k (default)", to: "4 128k" },
  docs: "https://nginx.org/en/docs/http/ngx_http_proxy_module.html#proxy_buffers",
};

describe("evidence links", () => {
  it("points a syscall at its strace row and a series at its chart", () => {
    const hrefs = finding.evidence.map((e) => evidenceHref(e, "/p/x/runs/r1"));
    expect(hrefs).toEqual(["/p/x/runs/r1#syscall-readv", "/p/x/runs/r1?m=proxy%3Avmstat.sy#charts", null]);
  });

  it("writes the evidence into the decision's rationale", () => {
    const text = decisionRationale(finding);
    expect(text).toContain("Finding `copy-bound-proxy`: sy is 85%");
    expect(text).toContain("- readv: 31,776 calls");
    expect(text).toContain(finding.docs);
  });
});
