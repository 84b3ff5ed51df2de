// Typed views of the parsed one-shot results (wrk, strace -c, pidstat averages) and of the load
// command. The JSON belongs to the parsers and arrives untyped: every reader here tolerates a missing
// or odd field (a truncated paste yields nulls) and never throws.
import { isNum } from "@/lib/format";

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {};
}

function num(v: unknown): number | null {
  return isNum(v) ? v : null;
}

// ---------- wrk ----------

export interface WrkView {
  url: string | null;
  threads: number | null;
  connections: number | null;
  durationS: number | null;
  requests: number | null;
  bytesRead: number | null;
  rps: number | null;
  transferPerSec: number | null;
  latency: { avg: number | null; stdev: number | null; max: number | null; withinStdevPct: number | null };
  perThread: { avg: number | null; stdev: number | null; max: number | null; withinStdevPct: number | null };
  /** Percentile -> milliseconds, in ascending percentile order (50, 75, 90, 99, and wrk2's 99.9...). */
  percentiles: [string, number | null][];
  non2xx: number | null;
  socketErrors: { connect: number | null; read: number | null; write: number | null; timeout: number | null };
}

export function wrkView(data: Obj): WrkView {
  const lat = obj(data.latency_ms);
  const thr = obj(data.req_per_sec_per_thread);
  const se = obj(data.socket_errors);
  const pct = obj(data.latency_percentiles_ms);
  const percentiles = Object.entries(pct)
    .filter(([k]) => Number.isFinite(Number.parseFloat(k)))
    .sort(([a], [b]) => Number.parseFloat(a) - Number.parseFloat(b))
    .map(([k, v]) => [k, num(v)] as [string, number | null]);
  return {
    url: typeof data.url === "string" ? data.url : null,
    threads: num(data.threads),
    connections: num(data.connections),
    durationS: num(data.duration_s),
    requests: num(data.requests),
    bytesRead: num(data.bytes_read),
    rps: num(data.requests_per_sec),
    transferPerSec: num(data.transfer_per_sec_bytes),
    latency: {
      avg: num(lat.avg),
      stdev: num(lat.stdev),
      max: num(lat.max),
      withinStdevPct: num(lat.within_stdev_pct),
    },
    perThread: {
      avg: num(thr.avg),
      stdev: num(thr.stdev),
      max: num(thr.max),
      withinStdevPct: num(thr.within_stdev_pct),
    },
    percentiles,
    non2xx: num(data.non_2xx_3xx),
    socketErrors: {
      connect: num(se.connect),
      read: num(se.read),
      write: num(se.write),
      timeout: num(se.timeout),
    },
  };
}

/** The percentiles engineers paste into a write-up, always in this order; extra ones (wrk2) follow. */
export const STANDARD_PERCENTILES = ["50", "75", "90", "99"];

// ---------- the load command ----------

const UNIT_S: Record<string, number> = { "": 1, s: 1, m: 60, h: 3600 };

/**
 * How long the load is meant to run, from a wrk/wrk2 command line ("-d 60s", "--duration=2m", "-d30");
 * wrk's default of 10 s when the command is wrk without -d; null for anything else.
 */
export function plannedDurationS(command: string | null | undefined): number | null {
  if (!command) return null;
  const words = command.trim().split(/\s+/);
  const toolAt = words.findIndex((w) => /(^|\/)wrk2?$/.test(w));
  if (toolAt < 0) return null;
  for (let i = toolAt + 1; i < words.length; i++) {
    const w = words[i] as string;
    let value: string | undefined;
    if (w === "-d" || w === "--duration") value = words[i + 1];
    else if (w.startsWith("--duration=")) value = w.slice("--duration=".length);
    else if (/^-d\d/.test(w)) value = w.slice(2);
    if (value === undefined) continue;
    const m = /^(\d+(?:\.\d+)?)([smh]?)$/i.exec(value);
    if (!m) return null;
    return Number.parseFloat(m[1] as string) * (UNIT_S[(m[2] ?? "").toLowerCase()] ?? 1);
  }
  return 10;
}

// ---------- strace -c ----------

export interface SyscallRow {
  syscall: string;
  calls: number | null;
  errors: number | null;
  seconds: number | null;
  usecsPerCall: number | null;
  pctTime: number | null;
}

export type SyscallSortKey = "syscall" | "calls" | "errors" | "seconds" | "usecsPerCall" | "pctTime";

export function straceView(data: Obj): { rows: SyscallRow[]; total: SyscallRow | null } {
  const list = Array.isArray(data.syscalls) ? data.syscalls : [];
  const rows = list.map((r) => {
    const o = obj(r);
    return {
      syscall: typeof o.syscall === "string" ? o.syscall : "?",
      calls: num(o.calls),
      errors: num(o.errors),
      seconds: num(o.seconds),
      usecsPerCall: num(o.usecs_per_call),
      pctTime: num(o.pct_time),
    };
  });
  const t = data.total === undefined ? null : obj(data.total);
  const total = t
    ? {
        syscall: "total",
        calls: num(t.calls),
        errors: num(t.errors),
        seconds: num(t.seconds),
        usecsPerCall: num(t.usecs_per_call),
        pctTime: num(t.pct_time),
      }
    : null;
  return { rows, total };
}

/** Sorted copy; missing numbers sort last whichever the direction. */
export function sortSyscalls(
  rows: readonly SyscallRow[],
  key: SyscallSortKey,
  order: "asc" | "desc",
): SyscallRow[] {
  const dir = order === "asc" ? 1 : -1;
  return [...rows].sort((a, b) => {
    if (key === "syscall") return dir * a.syscall.localeCompare(b.syscall);
    const x = a[key];
    const y = b[key];
    if (x === null && y === null) return a.syscall.localeCompare(b.syscall);
    if (x === null) return 1;
    if (y === null) return -1;
    return dir * (x - y) || a.syscall.localeCompare(b.syscall);
  });
}

// ---------- pidstat averages ----------

export interface PidstatColumn {
  key: string;
  label: string;
  unit: "%" | "/s" | "kB" | "";
}

const PIDSTAT_COLUMNS: PidstatColumn[] = [
  { key: "usr_pct", label: "%usr", unit: "%" },
  { key: "system_pct", label: "%system", unit: "%" },
  { key: "guest_pct", label: "%guest", unit: "%" },
  { key: "wait_pct", label: "%wait", unit: "%" },
  { key: "cpu_pct", label: "%CPU", unit: "%" },
  { key: "cswch_per_s", label: "cswch/s", unit: "/s" },
  { key: "nvcswch_per_s", label: "nvcswch/s", unit: "/s" },
  { key: "minflt_per_s", label: "minflt/s", unit: "/s" },
  { key: "majflt_per_s", label: "majflt/s", unit: "/s" },
  { key: "vsz_kb", label: "VSZ kB", unit: "kB" },
  { key: "rss_kb", label: "RSS kB", unit: "kB" },
  { key: "mem_pct", label: "%MEM", unit: "%" },
  { key: "kb_rd_per_s", label: "kB_rd/s", unit: "/s" },
  { key: "kb_wr_per_s", label: "kB_wr/s", unit: "/s" },
];

export interface PidstatRow {
  command: string;
  pid: number | string | null;
  tid: number | string | null;
  values: Record<string, number | null>;
}

/** Per-process averages with only the columns some process has a value for. */
export function pidstatView(data: Obj): { columns: PidstatColumn[]; rows: PidstatRow[] } {
  const list = (Array.isArray(data.averages) ? data.averages : []).map(obj);
  const columns = PIDSTAT_COLUMNS.filter((c) => list.some((r) => isNum(r[c.key])));
  const id = (v: unknown) => (typeof v === "number" || typeof v === "string" ? v : null);
  const rows = list.map((r) => ({
    command: typeof r.command === "string" ? r.command : "?",
    pid: id(r.pid),
    tid: id(r.tid),
    values: Object.fromEntries(columns.map((c) => [c.key, num(r[c.key])])),
  }));
  rows.sort((a, b) => (b.values.cpu_pct ?? -1) - (a.values.cpu_pct ?? -1));
  return { columns, rows };
}
