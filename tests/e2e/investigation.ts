// The captured investigation of issue 5 (4 experiments x 3 runs of nginx-proxy-buffers), loaded through
// the real agent protocol as perflab-agent would stream it: shared by the specs that need real runs.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { APIRequestContext } from "@playwright/test";

export const CAPTURE = resolve(__dirname, "..", "fixtures", "captures", "nginx-proxy-buffers");
export const EXPERIMENTS = ["direct", "default", "buffers-128x4k", "buffers-4x128k"] as const;
export const LOADGEN = { agent_id: "agent-loadgen-e2e", hostname: "wrk-1", role: "loadgen" };
export const PROXY = { agent_id: "agent-proxy-e2e", hostname: "proxy-1", role: "proxy" };
const CLOCK = /\b(\d{2}):(\d{2}):(\d{2})\b/;

export async function ok(res: Promise<import("@playwright/test").APIResponse>, what: string) {
  const r = await res;
  if (!r.ok()) throw new Error(`${what}: HTTP ${r.status()} ${await r.text()}`);
  return r.json();
}

/** [wall, mono, line] with wall following the tool's own HH:MM:SS, as the agent would stream it. */
function timedLines(text: string, start: number): [number, number, string][] {
  let first: number | null = null;
  let offset = 0;
  return text.split("\n").map((line, i) => {
    const m = CLOCK.exec(line);
    if (m) {
      const secs = Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
      first ??= secs;
      offset = (secs - first + 86400) % 86400;
    }
    const wall = start + offset + 0.5 + i * 1e-4;
    return [wall, 1000 + wall - start, line];
  });
}

export const batch = (
  runId: string,
  stream: string,
  source: string,
  role: string,
  lines: [number, number, string][],
) => ({
  run_id: runId,
  stream,
  source,
  role,
  seq: 1,
  lines,
  dropped: 0,
  closed: true,
});

/** Same steps as tests/compare/investigation.py: create, join, start, stream, upload nginx.conf, finish. */
export async function loadInvestigation(
  user: APIRequestContext,
  agent: APIRequestContext,
  slug: string,
  csrf: string,
  experiments: readonly string[] = EXPERIMENTS,
) {
  const { token } = await ok(
    user.post(`/api/projects/${slug}/tokens`, {
      data: { name: "e2e investigation", scopes: ["ingest", "read"] },
      headers: { "X-CSRF-Token": csrf },
    }),
    "create token",
  );
  const auth = { Authorization: `Bearer ${token}` };
  for (const host of [LOADGEN, PROXY]) {
    await ok(
      agent.post("/api/agent/hello", {
        headers: auth,
        data: {
          ...host,
          version: "0.1.0",
          facts: { kernel: "6.18.44", cpus_online: 2, distro: "Debian 12" },
          capabilities: {},
          collectors: host === LOADGEN ? [] : ["vmstat", "pidstat:nginx", "strace-c:nginx"],
        },
      }),
      "hello",
    );
  }
  let t = Date.now() / 1000 - 3600;
  for (const exp of experiments) {
    for (const n of [1, 2, 3]) {
      const dir = join(CAPTURE, exp, `run${n}`);
      const read = (f: string) => readFileSync(join(dir, f), "utf8");
      const runId = crypto.randomUUID();
      await ok(
        agent.post("/api/agent/runs", {
          headers: auth,
          data: {
            run_id: runId,
            experiment: exp,
            label: `run ${n}`,
            load_command: "wrk -t 2 -c 100 -d 10s --latency http://127.0.0.1:18090/page.html",
            wait_for_roles: ["loadgen", "proxy"],
          },
        }),
        "create run",
      );
      for (const [host, streams] of [
        [LOADGEN, ["load"]],
        [PROXY, ["vmstat", "pidstat:nginx", "strace-c:nginx"]],
      ] as const) {
        await ok(
          agent.post(`/api/agent/runs/${runId}/join`, {
            headers: auth,
            data: { agent_id: host.agent_id, role: host.role, streams },
          }),
          "join",
        );
      }
      await ok(
        agent.post(`/api/agent/runs/${runId}/start`, { headers: auth, data: { started_at: t } }),
        "start",
      );
      const strace = read("strace-c.txt")
        .split("\n")
        .map((l): [number, number, string] => [t + 10.5, 1010.5, l]);
      await ok(
        agent.post("/api/ingest/batches", {
          headers: auth,
          data: {
            agent_id: PROXY.agent_id,
            batches: [
              batch(runId, "vmstat", "vmstat", "proxy", timedLines(read("vmstat.txt"), t)),
              batch(runId, "pidstat:nginx", "pidstat", "proxy", timedLines(read("pidstat.txt"), t)),
              batch(runId, "strace-c:nginx", "strace-c", "proxy", strace),
            ],
          },
        }),
        "proxy batches",
      );
      const wrk = read("wrk.txt")
        .split("\n")
        .map((l, i): [number, number, string] => [t + 10.2 + i * 1e-3, 1010.2 + i * 1e-3, l]);
      await ok(
        agent.post("/api/ingest/batches", {
          headers: auth,
          data: { agent_id: LOADGEN.agent_id, batches: [batch(runId, "load", "wrk", "loadgen", wrk)] },
        }),
        "load batch",
      );
      if (exp !== "direct") {
        await ok(
          agent.post(`/api/agent/runs/${runId}/artifacts?kind=config&name=nginx.conf&role=proxy`, {
            headers: { ...auth, "Content-Type": "application/octet-stream" },
            data: readFileSync(join(CAPTURE, exp, "nginx.conf")),
          }),
          "config snapshot",
        );
      }
      await ok(
        agent.post(`/api/agent/runs/${runId}/finish`, {
          headers: auth,
          data: { exit_code: 0, ended_at: t + 11 },
        }),
        "finish",
      );
      t += 60;
    }
  }
  return auth;
}
