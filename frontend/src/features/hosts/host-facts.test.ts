import { describe, expect, it } from "vitest";
import { capabilities, keyFacts } from "./host-facts";

describe("host facts", () => {
  it("lists available collectors first and keeps the reason of unavailable ones", () => {
    const caps = capabilities(
      { vmstat: { available: true }, "netqtop:eth0": { available: false, reason: "bcc is not installed" } },
      ["vmstat", "pidstat:nginx"],
    );
    expect(caps).toEqual([
      { name: "pidstat:nginx", available: true, reason: "" },
      { name: "vmstat", available: true, reason: "" },
      { name: "netqtop:eth0", available: false, reason: "bcc is not installed" },
    ]);
  });

  it("summarises the facts that matter for performance", () => {
    const rows = keyFacts({
      kernel: "6.1.0",
      cpus_online: 88,
      cgroup_cpu_limit: 1,
      mem_total_kb: 24_000_000,
      nic_queues: { eth0: { rx: 4, tx: 4 } },
      junk: { deep: true },
    });
    expect(rows).toEqual([
      { label: "Kernel", value: "6.1.0" },
      { label: "CPUs", value: "88 online, cgroup limit 1" },
      { label: "Memory", value: "22.9 GiB" },
      { label: "NIC queues", value: "eth0 rx 4 / tx 4" },
    ]);
  });

  it("tolerates odd shapes", () => {
    expect(capabilities({ x: null, y: "weird" }, [42])).toEqual([
      { name: "x", available: true, reason: "" },
      { name: "y", available: true, reason: "" },
    ]);
    expect(keyFacts({ nic_queues: "eth0" })).toEqual([]);
  });
});
