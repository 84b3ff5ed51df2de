// Host facts and capabilities arrive as free-form JSON from agents of any version; these helpers pick
// out what the hosts table shows and never throw on an unexpected shape.
import { formatBytes, isNum } from "@/lib/format";

export interface Capability {
  name: string;
  available: boolean;
  reason: string;
}

/** Collectors the host was started with plus everything it reported a capability for, sorted. */
export function capabilities(caps: Record<string, unknown>, collectors: unknown[]): Capability[] {
  const out = new Map<string, Capability>();
  for (const c of collectors) {
    if (typeof c === "string") out.set(c, { name: c, available: true, reason: "" });
  }
  for (const [name, raw] of Object.entries(caps)) {
    const v = raw && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
    const available = v.available !== false;
    out.set(name, { name, available, reason: typeof v.reason === "string" ? v.reason : "" });
  }
  return [...out.values()].sort(
    (a, b) => Number(b.available) - Number(a.available) || a.name.localeCompare(b.name),
  );
}

export interface FactRow {
  label: string;
  value: string;
}

function str(v: unknown): string | null {
  if (typeof v === "string" && v.trim()) return v;
  if (isNum(v)) return String(v);
  return null;
}

/** The facts that explain performance differences, first: kernel, CPUs and the cgroup limit, memory, NICs. */
export function keyFacts(facts: Record<string, unknown>): FactRow[] {
  const rows: FactRow[] = [];
  const add = (label: string, value: string | null) => {
    if (value) rows.push({ label, value });
  };
  add("Kernel", str(facts.kernel));
  add("Distro", str(facts.distro));
  add("CPU", str(facts.cpu_model));
  const cpus = str(facts.cpus_online);
  const limit = facts.cgroup_cpu_limit;
  add("CPUs", cpus && isNum(limit) ? `${cpus} online, cgroup limit ${limit}` : cpus);
  add("Memory", isNum(facts.mem_total_kb) ? formatBytes(facts.mem_total_kb * 1024) : null);
  const nics = facts.nic_queues;
  if (nics && typeof nics === "object") {
    const parts = Object.entries(nics as Record<string, unknown>).map(([nic, q]) => {
      const qq = q && typeof q === "object" ? (q as Record<string, unknown>) : {};
      return `${nic} rx ${str(qq.rx) ?? "?"} / tx ${str(qq.tx) ?? "?"}`;
    });
    add("NIC queues", parts.join(", ") || null);
  }
  return rows;
}
