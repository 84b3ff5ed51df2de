// The files a user is about to import, and everything about them that is not React: reading a dropped
// file (text, or base64 when gzip-compressed), what each kind is, what a preview says in one line,
// which request body to send, which file a server error is about, and the equivalent CLI command.
import { bytesToBase64, isGzip } from "@/lib/base64";
import { isNum } from "@/lib/format";
import { shellQuote } from "@/lib/shell-quote";

export interface ImportEntry {
  /** Local identity (two files may share a name). */
  id: string;
  name: string;
  /** The text, or base64 of the raw bytes when encoding is "base64" (gzip). */
  content: string;
  encoding: "text" | "base64";
  size: number;
  origin: "file" | "paste";
  /** "auto" or a kind the user chose because detection guessed wrong. */
  kind: string;
  /** The role the user typed; null keeps the server's default (wrk: loadgen, the rest: target). */
  role: string | null;
  /** Bumped when content or kind change, so the preview is asked again. */
  version: number;
}

export interface KindInfo {
  kind: string;
  what: string;
  example: string;
}

/** What the server's parsers read (perflab.parsers.KINDS), in the order users usually have them. */
export const KINDS: KindInfo[] = [
  {
    kind: "wrk",
    what: "wrk / wrk2 result: requests/s, latency distribution, errors",
    example: "wrk --latency …",
  },
  {
    kind: "vmstat",
    what: "vmstat samples: CPU us/sy/id/wa/st, interrupts, context switches",
    example: "vmstat -t 1",
  },
  {
    kind: "pidstat",
    what: "per-process CPU, context switches, memory, with Average lines",
    example: "pidstat -h -u -w -r -C nginx 1",
  },
  {
    kind: "strace-c",
    what: "strace -c syscall table: calls, errors, time per syscall",
    example: "strace -c -f -p PID",
  },
  {
    kind: "strace",
    what: "a full strace log, as histograms of return values per syscall",
    example: "strace -e trace=readv,writev",
  },
  {
    kind: "netqtop",
    what: "per-queue packet sizes and rates from bcc's netqtop",
    example: "netqtop -n eth0 -i 1",
  },
  { kind: "ss-s", what: "socket summary: TIME-WAIT, orphans, totals", example: "ss -s" },
  {
    kind: "netstat-s",
    what: "protocol counters: listen queue overflows, retransmits",
    example: "netstat -s",
  },
  { kind: "perf-stat", what: "perf stat counters", example: "perf stat -p PID" },
  { kind: "sysctl", what: "kernel settings, as sysctl -a or name = value lines", example: "sysctl -a" },
  {
    kind: "dmesg",
    what: "kernel log: conntrack table full, SYN flooding, TIME_WAIT overflow, OOM kills, NIC resets",
    example: "dmesg -T / journalctl -k",
  },
  {
    kind: "ss-ltn",
    what: "listening sockets: accept queue (Recv-Q) against its size (Send-Q)",
    example: "ss -ltnp",
  },
  { kind: "ss-tan", what: "every TCP socket, counted per state (TIME-WAIT, ESTAB…)", example: "ss -tan" },
  {
    kind: "nginx-access",
    what: "nginx access log: rate per second, status classes, request vs upstream latency",
    example: "log_format line, then the log",
  },
  {
    kind: "top",
    what: "top in batch mode: CPU split, busiest tasks (wrk's threads)",
    example: "top -b -H -d 1",
  },
  {
    kind: "nstat",
    what: "kernel SNMP counters: listen overflows, retransmits (nstat -z: deltas)",
    example: "nstat -z",
  },
  {
    kind: "tsar",
    what: "Alibaba tsar tables: cpu, mem, tcp, traffic, io, load per interval",
    example: "tsar -l -i 1",
  },
  {
    kind: "k6",
    what: "k6 end-of-test summary or its JSON export, read as wrk's result",
    example: "k6 run --summary-export=s.json",
  },
  {
    kind: "vegeta",
    what: "vegeta report (text or JSON), read as wrk's result",
    example: "vegeta report -type=json",
  },
  { kind: "hey", what: "hey summary, read as wrk's result", example: "hey -z 30s -c 50 URL" },
  { kind: "ab", what: "ApacheBench report, read as wrk's result", example: "ab -n 10000 -c 50 URL" },
  {
    kind: "host-facts",
    what: "CPUs and cgroup limits: nproc, getconf, lscpu, /proc/cpuinfo, cpu.max, cpuset.cpus",
    example: "$ cat /sys/fs/cgroup/cpu.max",
  },
  {
    kind: "config",
    what: "a config file snapshot (nginx.conf…), diffed and read by findings",
    example: "nginx.conf",
  },
];

export const ROLE_SUGGESTIONS = ["loadgen", "proxy", "upstream", "target", "db", "cache"];

/** The server's rule for roles; null when fine. */
export function roleError(role: string | null): string | null {
  if (role === null || role === "") return null;
  if (role.length > 64) return "At most 64 characters.";
  if (!/^[A-Za-z0-9_.-]+$/.test(role)) return "Letters, digits, dot, dash and underscore only.";
  return null;
}

let counter = 0;
export function newEntryId(): string {
  counter += 1;
  return `f${Date.now().toString(36)}-${counter}`;
}

/** Reads a picked or dropped file: gzip (by content, whatever the name) as base64, anything else as UTF-8 text. */
export async function readFileEntry(file: File): Promise<ImportEntry> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  const gz = isGzip(bytes);
  return {
    id: newEntryId(),
    name: file.name || "file.txt",
    content: gz ? bytesToBase64(bytes) : new TextDecoder("utf-8").decode(bytes),
    encoding: gz ? "base64" : "text",
    size: bytes.length,
    origin: "file",
    kind: "auto",
    role: null,
    version: 1,
  };
}

export function pastedEntry(text: string, existing: readonly ImportEntry[]): ImportEntry {
  const names = new Set(existing.map((e) => e.name));
  let n = 1;
  while (names.has(`pasted-${n}.txt`)) n += 1;
  return {
    id: newEntryId(),
    name: `pasted-${n}.txt`,
    content: text,
    encoding: "text",
    size: new TextEncoder().encode(text).length,
    origin: "paste",
    kind: "auto",
    role: null,
    version: 1,
  };
}

/** One file of a request body; the role only when the user set one (same content hash as the CLI otherwise). */
export function fileBody(e: ImportEntry): {
  name: string;
  content: string;
  encoding: "text" | "base64";
  kind: string;
  role?: string;
} {
  const body = { name: e.name, content: e.content, encoding: e.encoding, kind: e.kind };
  return e.role ? { ...body, role: e.role } : body;
}

// ---------- preview ----------

export interface Fact {
  label: string;
  value: string;
}

type Preview = Record<string, unknown>;

function int(v: unknown): string | null {
  return isNum(v) ? new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 }).format(v) : null;
}

function fixed(v: unknown, digits: number): string | null {
  return isNum(v)
    ? new Intl.NumberFormat("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(
        v,
      )
    : null;
}

/** The few parsed values that tell a user "yes, that is the file I meant". */
export function previewFacts(kind: string | null | undefined, p: Preview): Fact[] {
  const out: Fact[] = [];
  const add = (label: string, value: string | null) => {
    if (value !== null && value !== "") out.push({ label, value });
  };
  if (kind === "wrk") {
    add("Requests/sec", fixed(p.requests_per_sec, 2));
    add("p99", isNum(p.latency_p99_ms) ? `${fixed(p.latency_p99_ms, 2)} ms` : null);
    add("avg latency", isNum(p.latency_avg_ms) ? `${fixed(p.latency_avg_ms, 2)} ms` : null);
    add("requests", int(p.requests));
    if (isNum(p.non_2xx_3xx) && p.non_2xx_3xx > 0) add("non-2xx/3xx", int(p.non_2xx_3xx));
  } else if (kind === "vmstat") {
    add("samples", int(p.samples));
    add("columns", Array.isArray(p.columns) ? p.columns.join(" ") : null);
  } else if (kind === "pidstat") {
    add("samples", int(p.samples));
    add("averages", int(p.averages));
  } else if (kind === "strace-c") {
    add("top syscalls", Array.isArray(p.top) ? p.top.join(", ") : null);
    add("syscalls", int(p.syscalls));
    add("calls", int(p.total_calls));
  } else {
    for (const [k, v] of Object.entries(p)) {
      if (Array.isArray(v)) add(k, v.slice(0, 10).join(", "));
      else if (isNum(v)) add(k, int(v));
      else if (typeof v === "string") add(k, v);
    }
  }
  return out;
}

// ---------- errors ----------

/**
 * Which file a server error is about: "nothing was imported: wrk.txt: line 3: ...; vmstat.txt: ..." gives
 * {wrk.txt: "line 3: ...", vmstat.txt: "..."}. Names are matched against the files sent, longest first,
 * so a name containing ": " or "; " still splits right.
 */
export function fileErrors(detail: string, names: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const body = detail.replace(/^nothing was imported:\s*/, "");
  const sorted = [...new Set(names)].sort((a, b) => b.length - a.length);
  const starts: { at: number; name: string }[] = [];
  for (const name of sorted) {
    const needle = `${name}: `;
    let i = body.indexOf(needle);
    while (i >= 0) {
      const atBoundary = i === 0 || body.slice(Math.max(0, i - 2), i) === "; ";
      if (atBoundary && !starts.some((s) => s.at <= i && i < s.at + s.name.length + 2)) {
        starts.push({ at: i, name });
      }
      i = body.indexOf(needle, i + 1);
    }
  }
  starts.sort((a, b) => a.at - b.at);
  starts.forEach((s, k) => {
    const end = k + 1 < starts.length ? (starts[k + 1] as { at: number }).at - 2 : body.length;
    out.set(s.name, body.slice(s.at + s.name.length + 2, end).trim());
  });
  return out;
}

// ---------- the same from a terminal ----------

export function cliCommand(
  origin: string,
  slug: string,
  experiment: string,
  label: string,
  names: string[],
): string {
  const parts = [
    "perflab-agent import",
    `--server ${shellQuote(origin.replace(/\/+$/, ""))}`,
    "--token plb_YOUR_TOKEN",
    `--project ${shellQuote(slug)}`,
    `--experiment ${shellQuote(experiment.trim() || "baseline")}`,
  ];
  if (label.trim()) parts.push(`--run-label ${shellQuote(label.trim())}`);
  const files = (names.length ? names : ["wrk.txt", "vmstat.txt"]).map(shellQuote);
  return `${parts.join(" ")} \\\n    ${files.join(" ")}`;
}

/** Whether anything in this preview will be read (the rest is kept as attachments of the run). */
export function readable(p: {
  ok: boolean;
  imported?: boolean;
  parts?: { ok: boolean; imported?: boolean }[];
}) {
  return (p.parts ?? [p]).some((x) => x.ok && x.imported !== false);
}
