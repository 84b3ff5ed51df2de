// Results in, results out: import the real nginx proxy_buffers capture through the UI and read it on the
// run page (wrk table, charts, strace -c); then watch a run that an "agent" streams over the real agent
// protocol update live, without reloads, until it completes.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import { csrfHeaders, logIn, watchConsole } from "./session";

const captures = resolve(__dirname, "..", "fixtures", "captures", "nginx-proxy-buffers", "default", "run1");
const FILES = ["wrk.txt", "vmstat.txt", "pidstat.txt", "strace-c.txt"].map((f) => join(captures, f));

/** Requests/sec exactly as wrk printed it in the capture, formatted the way the UI shows numbers. */
function capturedRps(): string {
  const m = /Requests\/sec:\s+([\d.]+)/.exec(readFileSync(join(captures, "wrk.txt"), "utf8"));
  if (!m?.[1]) throw new Error("no Requests/sec in wrk.txt");
  return new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(
    Number.parseFloat(m[1]),
  );
}

async function createProject(page: Page, prefix: string): Promise<string> {
  const slug = `${prefix}-${Date.now().toString(36)}`;
  const r = await page.request.post("/api/projects", {
    data: { name: slug, slug },
    headers: await csrfHeaders(page.context()),
  });
  expect(r.status()).toBe(201);
  return slug;
}

test("import the proxy_buffers capture through the UI and read it on the run page", async ({ page }) => {
  await logIn(page);
  const errors = watchConsole(page);
  const slug = await createProject(page, "import");
  const rps = capturedRps();

  await page.goto(`/p/${slug}/import`);
  await expect(page.getByText("Nothing to import yet")).toBeVisible();
  await expect(page.getByRole("cell", { name: "strace-c", exact: true })).toBeVisible();

  // Pick the four files; the server detects each kind and previews what it parsed.
  await page.getByLabel("Files to import").setInputFiles(FILES);
  for (const [file, kind] of [
    ["wrk.txt", "wrk"],
    ["vmstat.txt", "vmstat"],
    ["pidstat.txt", "pidstat"],
    ["strace-c.txt", "strace-c"],
  ] as const) {
    await expect(page.getByTestId(`import-file-${file}`).getByTestId("detected-kind")).toHaveText(kind);
  }
  await expect(page.getByTestId("import-file-wrk.txt")).toContainText(`Requests/sec${rps}`);
  await expect(page.getByTestId("import-file-wrk.txt").getByLabel("Role of wrk.txt")).toHaveValue("loadgen");
  await expect(page.getByTestId("import-file-strace-c.txt")).toContainText("writev, readv");

  // Text that is no tool's output would be kept as an attachment of the run, with a note; it can be removed.
  await page.getByLabel("Or paste output").fill("hello, this is not the output of a tool");
  await page.getByRole("button", { name: "Add pasted text" }).click();
  const pasted = page.getByTestId("import-file-pasted-1.txt");
  await expect(pasted.getByTestId("attachment-note")).toContainText("not recognised");
  await page.getByLabel("Experiment").fill("default");
  await expect(page.getByText("A new experiment with this name will be created.")).toBeVisible();
  await expect(page.getByTestId("attachments-notice")).toContainText("pasted-1.txt is not read");
  await pasted.getByRole("button", { name: "Remove pasted-1.txt" }).click();

  await page.getByLabel("Run label (optional)").fill("run1");
  await expect(page.getByRole("figure", { name: "Import with the agent" })).toContainText(
    `--project ${slug} --experiment default --run-label run1`,
  );
  await page.getByRole("button", { name: "Save run" }).click();

  // The run page: wrk's table with the captured number, a drawn vmstat chart, strace -c with writev on top.
  await expect(page).toHaveURL(new RegExp(`/p/${slug}/runs/[0-9a-f-]{36}$`));
  const runUrl = page.url();
  await expect(page.getByTestId("wrk-rps")).toHaveText(rps);
  // Dated by its data (vmstat -t stamps of 2026-11-22 02:03 UTC), not by the import, which is named as such.
  await expect(
    page.locator("dt", { hasText: /^Started$/ }).locator("xpath=following-sibling::dd[1]"),
  ).toContainText(/2026-11-2[12] /);
  await expect(page.getByText(/^Imported (just now|\d+ min ago)$/)).toBeVisible();
  const latency = page.getByRole("table", { name: "Latency distribution" });
  await expect(latency.getByRole("row", { name: /p99/ })).toContainText("179 ms");
  const cpu = page.locator('[data-testid="chart-target:vmstat:cpu"]');
  await expect(cpu.locator("path.recharts-line-curve").first()).toHaveAttribute("d", /^M[\d.]+,[\d.]+L/);
  await expect(cpu.getByRole("button", { name: /^sy \d/ })).toBeVisible();
  const strace = page.getByTestId("strace-summary");
  await expect(strace.locator("tbody tr").first()).toContainText("writev");
  await strace.getByRole("button", { name: /^syscall/ }).click();
  await expect(strace.locator("tbody tr").first()).toContainText("brk");
  await expect(page.getByTestId("pidstat-summary").locator("tbody tr")).toHaveCount(3);

  // One cursor for every chart: hovering the CPU chart shows the same time in the process charts.
  await cpu.scrollIntoViewIfNeeded();
  const box = await cpu.getByRole("slider").boundingBox();
  if (!box) throw new Error("CPU chart has no box");
  await page.mouse.move(box.x + box.width * 0.55, box.y + box.height / 2);
  const at = await cpu.locator(".mchart-legend-at").textContent();
  expect(at).toMatch(/^at \d+:\d\d$/);
  await expect(page.locator('[data-testid="chart-target:pidstat:cpu_pct"] .mchart-legend-at')).toHaveText(
    at ?? "",
  );

  // Chart choices live in the URL: remove one, add one from the searchable list, reload: same view.
  await page.getByRole("button", { name: "Remove chart Runnable processes (r) (target)" }).click();
  await expect(page).toHaveURL(/[?&]m=target:vmstat\.us,/);
  await page.getByRole("button", { name: "Add metrics" }).click();
  await page.getByLabel("Search metrics").fill("blocks in");
  // click, not check(): the box follows the URL (see foundation.spec.ts).
  const bi = page.getByRole("checkbox", { name: /vmstat\.bi/ });
  await bi.click();
  await expect(page).toHaveURL(/target:vmstat\.bi/);
  await expect(bi).toBeChecked();
  await page.reload();
  await expect(page.locator('[data-testid="chart-target:vmstat:io"]')).toBeVisible();
  await expect(page.locator('[data-testid="chart-target:vmstat:procs"]')).toHaveCount(0);
  await expect(page.locator('[data-testid="chart-target:vmstat:cpu"]')).toBeVisible();

  // The same files again: no second run, and a link to the first.
  await page.goto(`/p/${slug}/import`);
  await page.getByLabel("Files to import").setInputFiles(FILES);
  await page.getByLabel("Experiment").fill("default");
  await expect(page.getByText(/Adds a run to the existing experiment \(1 run so far\)/)).toBeVisible();
  await page.getByRole("button", { name: "Save run" }).click();
  const dup = page.getByTestId("duplicate-import");
  await expect(dup).toContainText("Already imported");
  await expect(dup.getByRole("link", { name: "Open the existing run" })).toHaveAttribute(
    "href",
    new URL(runUrl).pathname,
  );

  // The history's "Last run" is when the run ran (days before the import), not "just now".
  await page.goto(`/p/${slug}`);
  const lastRun = page
    .getByRole("row", { name: /default/ })
    .locator("time")
    .first();
  await expect(lastRun).toHaveAttribute("datetime", /^2026-11-22T02:03:5\d/);
  await expect(lastRun).not.toHaveText("just now");

  expect(errors).toEqual([]);
});

test("a binary file read as text is refused on its card in plain words", async ({ page }) => {
  await logIn(page);
  const slug = await createProject(page, "import-nul");
  await page.goto(`/p/${slug}/import`);
  // A binary file read as text: its card says which file and line hold a NUL byte, not `files.0.content`.
  await page.getByLabel("Files to import").setInputFiles({
    name: "capture.log",
    mimeType: "text/plain",
    buffer: Buffer.from("procs -----------memory----------\n\u0000\u0001ELF\n"),
  });
  const binary = page.getByTestId("import-file-capture.log");
  await expect(binary.getByRole("alert")).toHaveText(
    "file 1 (capture.log) contains a NUL byte (\\0) at line 2; perflab stores text — is this a binary file?",
  );
  await page.getByLabel("Experiment").fill("default");
  await expect(page.getByText("Remove or fix capture.log: it could not be parsed.")).toBeVisible();
  await binary.getByRole("button", { name: "Remove capture.log" }).click();
  await expect(binary).toHaveCount(0);
});

/** A fake agent speaking the real protocol (docs/protocol.md) with a bearer token. */
class Agent {
  private seqs = new Map<string, number>();
  constructor(
    private api: APIRequestContext,
    readonly agentId: string,
    readonly runId: string,
  ) {}

  async post(path: string, data: unknown): Promise<unknown> {
    const r = await this.api.post(path, { data });
    expect(r.ok(), `${path}: ${r.status()} ${await r.text()}`).toBe(true);
    return r.json();
  }

  async send(stream: string, source: string, role: string, lines: [number, string][], closed = false) {
    const seq = (this.seqs.get(stream) ?? 0) + 1;
    this.seqs.set(stream, seq);
    await this.post("/api/ingest/batches", {
      agent_id: this.agentId,
      batches: [
        {
          run_id: this.runId,
          stream,
          source,
          role,
          seq,
          lines: lines.map(([wall, text]) => [wall, wall, text]),
          closed,
        },
      ],
    });
  }
}

const VMSTAT_HEADER = [
  "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----",
  " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st",
];
const vmstatLine = (sy: number) =>
  ` 4  0      0 24038756   2384 453352    0    0     0     0 6158 58334 12 ${sy} ${88 - sy}  0  0`;

test("a streamed run updates live and completes without a reload", async ({ page, playwright, baseURL }) => {
  await logIn(page);
  const errors = watchConsole(page);
  const slug = await createProject(page, "live");
  const tokenReply = await page.request.post(`/api/projects/${slug}/tokens`, {
    data: { name: "e2e agent", scopes: ["ingest", "read"] },
    headers: await csrfHeaders(page.context()),
  });
  expect(tokenReply.status()).toBe(201);
  const { token } = (await tokenReply.json()) as { token: string };
  const api = await playwright.request.newContext({
    baseURL,
    extraHTTPHeaders: { Authorization: `Bearer ${token}` },
  });

  const runId = randomUUID();
  const agent = new Agent(api, `e2e-proxy-${Date.now().toString(36)}`, runId);
  await agent.post("/api/agent/hello", {
    agent_id: agent.agentId,
    hostname: "proxy-1",
    role: "proxy",
    collectors: ["vmstat"],
    capabilities: { vmstat: { available: true } },
  });
  await agent.post("/api/agent/runs", {
    run_id: runId,
    experiment: "proxy_buffers 4 128k",
    label: "live",
    load_command: "wrk -c 100 -t 2 -d 60s --latency http://proxy:8080/",
    wait_for_roles: ["proxy"],
  });
  await agent.post(`/api/agent/runs/${runId}/join`, {
    agent_id: agent.agentId,
    role: "proxy",
    streams: ["vmstat", "load"],
  });
  const t0 = Date.now() / 1000 - 5;
  await agent.post(`/api/agent/runs/${runId}/start`, { started_at: t0 });
  // vmstat's first line is the average since boot: a line, not a sample.
  await agent.send("vmstat", "vmstat", "proxy", [
    [t0 + 0.5, VMSTAT_HEADER[0] as string],
    [t0 + 0.5, VMSTAT_HEADER[1] as string],
    [t0 + 0.6, vmstatLine(10)],
    [t0 + 1, vmstatLine(70)],
    [t0 + 2, vmstatLine(75)],
    [t0 + 3, vmstatLine(80)],
  ]);

  await page.goto(`/p/${slug}/runs/${runId}`);
  await expect(page.getByTestId("run-status")).toContainText("live");
  await expect(page.getByTestId("live-panel")).toContainText("wrk -c 100 -t 2 -d 60s");
  await expect(page.getByTestId("elapsed")).toContainText("/ 1:00");
  const vmstatRow = page.getByRole("row", { name: /vmstat/ });
  await expect(vmstatRow.getByRole("cell").nth(3)).toHaveText("6");
  const cpu = page.locator('[data-testid="chart-proxy:vmstat:cpu"]');
  await expect(cpu).toHaveAttribute("data-points", "15"); // us, sy, id, wa, st x 3 samples
  await expect(page.getByText("Summaries appear when the run ends")).toBeVisible();

  // More samples arrive: the counters and the chart follow within a couple of seconds, no reload.
  await agent.send("vmstat", "vmstat", "proxy", [
    [t0 + 4, vmstatLine(82)],
    [t0 + 5, vmstatLine(84)],
    [t0 + 6, vmstatLine(85)],
  ]);
  await expect(vmstatRow.getByRole("cell").nth(3)).toHaveText("9", { timeout: 5_000 });
  await expect(cpu).toHaveAttribute("data-points", "30", { timeout: 5_000 });
  await expect(cpu.getByRole("button", { name: /^sy \d/ })).toContainText("85%");

  // What wrk prints while it runs shows up live, as it printed it.
  const wrk = readFileSync(join(captures, "wrk.txt"), "utf8").split("\n").filter(Boolean);
  await agent.send("load", "wrk", "loadgen", [[t0 + 1, wrk[0] ?? ""]]);
  await expect(page.getByTestId("live-output")).toContainText(wrk[0] ?? "Running", { timeout: 5_000 });

  // The load ends: wrk's output, the finish, the closing batch; the page turns complete by itself.
  await agent.send(
    "load",
    "wrk",
    "loadgen",
    wrk.slice(1).map((l) => [t0 + 6, l]),
    true,
  );
  await agent.post(`/api/agent/runs/${runId}/finish`, { exit_code: 0, ended_at: t0 + 6.5 });
  await agent.send("vmstat", "vmstat", "proxy", [], true);
  await expect(page.getByTestId("run-status")).toContainText("complete", { timeout: 5_000 });
  await expect(page.getByTestId("live-panel")).toHaveCount(0);
  await expect(page.getByTestId("wrk-rps")).toHaveText(capturedRps());
  await expect(page.getByTestId("run-reasons")).toHaveCount(0);

  await api.dispose();
  expect(errors).toEqual([]);
});
