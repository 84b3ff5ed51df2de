// The daily workflow around the numbers (issue 19): a botched run is excluded or deleted and can be
// brought back; viewers are offered nothing they cannot do; a typed note survives a reload and an
// expired session; two tabs editing one hypothesis do not overwrite each other; each page has its title;
// a strace window too long for its load says so on the run. Real server and database; runs are imported
// wrk outputs from the real capture, except the strace one, made by the real agent the server serves.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Browser, expect, type Page, test } from "@playwright/test";
import { adminEmail, adminPassword, csrfHeaders, logIn, watchConsole } from "./session";

const WRK = readFileSync(
  resolve(__dirname, "..", "fixtures", "captures", "nginx-proxy-buffers", "default", "run1", "wrk.txt"),
  "utf8",
);
const PASSWORD = "a long enough password 1";

function wrkOutput(rps: number): string {
  return WRK.replace("Requests/sec:   5627.00", `Requests/sec:   ${rps.toFixed(2)}`).replace(
    "56497 requests in 10.04s",
    `${Math.round(rps * 10.04)} requests in 10.04s`,
  );
}

async function ok(page: Page, method: "post" | "patch", url: string, data: unknown) {
  const r = await page.request[method](url, { data, headers: await csrfHeaders(page.context()) });
  if (!r.ok()) throw new Error(`${method} ${url}: HTTP ${r.status()} ${await r.text()}`);
  return r.json();
}

/** A project with experiment "default" of three runs (5000, 6000 and 9000 requests/s). */
async function projectWithRuns(page: Page, prefix: string) {
  const slug = `${prefix}-${Date.now().toString(36)}`;
  await ok(page, "post", "/api/projects", { name: slug, slug });
  const runs: string[] = [];
  for (const [i, rps] of [5000, 6000, 9000].entries()) {
    const r = await ok(page, "post", `/api/projects/${slug}/imports`, {
      experiment: "default",
      label: `r${i + 1}`,
      files: [{ name: "wrk.txt", content: wrkOutput(rps) }],
    });
    runs.push(r.run_id);
  }
  await ok(page, "post", `/api/projects/${slug}/imports`, {
    experiment: "baseline",
    label: "b1",
    files: [{ name: "wrk.txt", content: wrkOutput(12000) }],
  });
  const exp = (await (await page.request.get(`/api/projects/${slug}/experiments?q=default`)).json()).items[0];
  return { slug, runs, experimentId: exp.id as number };
}

async function asUser(browser: Browser, email: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await logIn(page, email, PASSWORD);
  return page;
}

test("a botched run is excluded with a reason, deleted, undone, and restored from the trash", async ({
  page,
}) => {
  await logIn(page);
  const errors = watchConsole(page);
  const { slug, experimentId } = await projectWithRuns(page, "trash");
  const history = page.getByRole("row", { name: /default/ });
  await page.goto(`/p/${slug}`);
  // The requests/s cell carries the exact median in its title: of 5000, 6000 and 9000.
  await expect(history.locator('td[title="6000.00"]')).toBeVisible();

  // Exclude r3: it stays in the list, struck through with the reason, and leaves the median.
  await page.goto(`/p/${slug}/experiments/${experimentId}`);
  const r3 = page.getByRole("table", { name: "Runs" }).getByRole("row", { name: /r3/ });
  await r3.getByRole("button", { name: "Exclude…" }).click();
  const dialog = page.getByRole("dialog", { name: "Exclude run r3 from statistics" });
  await dialog.getByLabel("Why?").fill("wrk ran on the proxy host");
  await dialog.getByRole("button", { name: "Exclude" }).click();
  await expect(r3).toContainText("Excluded from statistics: wrk ran on the proxy host");
  await expect(r3.locator(".run-name")).toHaveCSS("text-decoration-line", "line-through");
  await page.goto(`/p/${slug}`);
  await expect(history.locator('td[title="5500.00"]')).toBeVisible(); // median of 5000 and 6000
  await page.goto(`/p/${slug}/experiments/${experimentId}`);
  await r3.getByRole("button", { name: "Include again" }).click();
  await expect(r3).not.toContainText("Excluded");

  // Delete r1: gone from the list, an Undo brings it back.
  const r1 = page.getByRole("table", { name: "Runs" }).getByRole("row", { name: /r1/ });
  await r1.getByRole("button", { name: "Delete run" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Deleted run r1" })).toBeVisible();
  await expect(r1).toHaveCount(0);
  await page.getByRole("button", { name: "Undo" }).click();
  await expect(r1).toBeVisible();

  // Delete the experiment: the history forgets it, the Trash lists it for 30 days and restores it.
  await page.getByRole("button", { name: "Delete experiment" }).click();
  await expect(page).toHaveURL(new RegExp(`/p/${slug}$`));
  await expect(page.getByRole("row", { name: /default/ })).toHaveCount(0);
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Trash" }).click();
  await expect(page).toHaveTitle(`Trash · ${slug} · perflab`);
  const item = page.getByRole("row", { name: /experiment default/ });
  await expect(item).toContainText("30 days");
  await item.getByRole("button", { name: "Restore" }).click();
  await expect(page.getByText("The trash is empty")).toBeVisible();
  await page.goto(`/p/${slug}`);
  await expect(history.locator('td[title="6000.00"]')).toBeVisible();

  // Archived experiments are hidden until asked for.
  await ok(page, "patch", `/api/experiments/${experimentId}`, { status: "archived" });
  await page.goto(`/p/${slug}`);
  await expect(page.getByRole("row", { name: /default/ })).toHaveCount(0);
  await page.getByLabel("Show archived").check();
  await expect(page.getByRole("row", { name: /default/ })).toBeVisible();
  expect(errors).toEqual([]);
});

test("a viewer is offered no write control, and the Import page says why", async ({ page, browser }) => {
  await logIn(page);
  const { slug, experimentId, runs } = await projectWithRuns(page, "viewer");
  const u = Date.now().toString(36);
  const email = `viewer-${u}@example.test`;
  await ok(page, "post", "/api/users", { email, password: PASSWORD, role: "member" });
  await ok(page, "post", `/api/projects/${slug}/members`, { email, role: "viewer" });

  const viewer = await asUser(browser, email);
  await viewer.goto(`/p/${slug}/experiments/${experimentId}`);
  await expect(viewer.getByRole("table", { name: "Runs" })).toBeVisible();
  await expect(viewer.getByTestId("notes-decisions")).toBeVisible();
  for (const name of ["Edit", "Delete experiment", "Delete run", "Exclude…", "Add note"]) {
    await expect(viewer.getByRole("button", { name })).toHaveCount(0);
  }
  await expect(viewer.getByLabel("Status", { exact: true })).toBeDisabled();
  await viewer.goto(`/p/${slug}/runs/${runs[0]}`);
  await expect(viewer.getByTestId("run-status")).toBeVisible();
  for (const name of ["Delete run", "Exclude…", "Add note", "Rename roles"]) {
    await expect(viewer.getByRole("button", { name })).toHaveCount(0);
  }
  await viewer.goto(`/p/${slug}/compare?e=default&base=baseline`);
  await expect(viewer.getByRole("table", { name: "Results" })).toBeVisible();
  await expect(viewer.getByRole("button", { name: "Save & share" })).toHaveCount(0);
  await expect(viewer.getByRole("button", { name: "Record decision" })).toHaveCount(0);
  await viewer.goto(`/p/${slug}/import`);
  await expect(viewer.getByTestId("viewer-cannot-import")).toContainText(
    "You can read this project but not import into it",
  );
  await expect(viewer.getByText("could not be parsed")).toHaveCount(0);
});

test("a typed note survives a reload and an expired session, which opens a log-in dialog", async ({
  page,
}) => {
  await logIn(page);
  const errors = watchConsole(page);
  const { slug, experimentId } = await projectWithRuns(page, "session");
  await page.goto(`/p/${slug}/experiments/${experimentId}`);
  const note = page.getByLabel("Add a note (Markdown)");
  await note.fill("r3 looked throttled: check the loadgen's CPU");
  await page.reload();
  await expect(note).toHaveValue("r3 looked throttled: check the loadgen's CPU");

  // The session ends (expired or revoked server-side): the next request gets a 401.
  const session = (await page.context().cookies()).find((c) => c.name === "perflab_session");
  await page.context().clearCookies({ name: "perflab_session" });
  await page.getByRole("button", { name: "Add note" }).click();
  const dialog = page.getByRole("dialog", { name: "Your session has expired" });
  await expect(dialog).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`/p/${slug}/experiments/${experimentId}$`)); // no redirect
  await expect(note).toHaveValue("r3 looked throttled: check the loadgen's CPU");
  await dialog.getByLabel("Email").fill(adminEmail());
  await dialog.getByLabel("Password").fill(adminPassword());
  await dialog.getByRole("button", { name: "Log in" }).click();
  await expect(dialog).toBeHidden();
  await page.getByRole("button", { name: "Add note" }).click();
  await expect(page.getByTestId("note").filter({ hasText: "r3 looked throttled" })).toBeVisible();
  await expect(note).toHaveValue("");
  await page.reload();
  await expect(note).toHaveValue("");
  expect(session).toBeDefined();
  expect(errors.filter((e) => !/401|Failed to load resource/.test(e))).toEqual([]);
});

test("two tabs editing one hypothesis: the second save is refused with a clear conflict", async ({
  page,
  context,
}) => {
  await logIn(page);
  const { slug, experimentId } = await projectWithRuns(page, "conflict");
  const other = await context.newPage();
  for (const p of [page, other]) {
    await p.goto(`/p/${slug}/experiments/${experimentId}`);
    await p.getByRole("button", { name: "Edit" }).click();
  }
  await page.getByLabel("Hypothesis").fill("bigger buffers cut writev calls");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("bigger buffers cut writev calls")).toBeVisible();

  await other.getByLabel("Hypothesis").fill("keepalive to the upstream matters more");
  await other.getByRole("button", { name: "Save" }).click();
  await expect(other.getByRole("alert")).toContainText("changed by someone else since you opened it");
  await expect(other.getByLabel("Hypothesis")).toHaveValue("keepalive to the upstream matters more");
  const saved = await (await page.request.get(`/api/experiments/${experimentId}`)).json();
  expect(saved.hypothesis).toBe("bigger buffers cut writev calls");
});

test("pages have their own title on a direct load, and compare opens on the results", async ({ page }) => {
  await logIn(page);
  const { slug, experimentId } = await projectWithRuns(page, "titles");
  for (const [path, title] of [
    [`/p/${slug}/trends`, `Trend · ${slug} · perflab`],
    [`/p/${slug}/hosts`, `Hosts · ${slug} · perflab`],
    [`/p/${slug}/experiments/${experimentId}`, `default · ${slug} · perflab`],
    [`/p/${slug}/import`, `Import results · ${slug} · perflab`],
  ] as const) {
    await page.goto(path);
    await expect(page).toHaveTitle(title);
    await page.waitForTimeout(300); // the project's own request lands after the page's: the title stays
    await expect(page).toHaveTitle(title);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`/p/${slug}/compare?e=default&base=baseline`);
  const results = page.getByRole("table", { name: "Results" });
  await expect(results).toBeVisible();
  const box = await results.boundingBox();
  expect(box?.y ?? 9999).toBeLessThan(900); // on the first screen
  const findings = page.getByTestId("compare-findings");
  if (await findings.count()) {
    const f = await findings.boundingBox();
    expect(f?.y ?? 0).toBeGreaterThan(box?.y ?? 0);
  }
});

test("at 390 px the compare, run and shared pages fit the screen, medians first", async ({ page }) => {
  await logIn(page);
  const { slug, runs } = await projectWithRuns(page, "phone");
  const saved = await ok(page, "post", `/api/projects/${slug}/comparisons`, {
    baseline: "baseline",
    experiments: ["default"],
  });
  const link = await ok(page, "post", `/api/comparisons/${saved.short_id}/share-links`, {});
  await page.setViewportSize({ width: 390, height: 844 });
  for (const path of [`/p/${slug}/compare?e=default&base=baseline`, `/p/${slug}/runs/${runs[0]}`, link.url]) {
    await page.goto(path);
    await expect(page.locator("main")).toBeVisible();
    await page.waitForLoadState("networkidle");
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width, `${path} is ${width} px wide`).toBeLessThanOrEqual(390);
  }
  // The median of each experiment is on screen without scrolling sideways.
  await page.goto(`/p/${slug}/compare?e=default&base=baseline`);
  const rps = page.getByRole("table", { name: "Results" }).getByRole("row", { name: /Requests\/sec/ });
  for (const cell of await rps.getByRole("cell").all()) {
    const box = await cell.boundingBox();
    expect((box?.x ?? 999) + 10).toBeLessThan(390);
  }
});

test("zooming a run's chart keeps the page where it was scrolled", async ({ page }) => {
  await logIn(page);
  const slug = `zoom-${Date.now().toString(36)}`;
  await ok(page, "post", "/api/projects", { name: slug, slug });
  const dir = resolve(__dirname, "..", "fixtures", "captures", "nginx-proxy-buffers", "default", "run1");
  const files = ["wrk.txt", "vmstat.txt", "pidstat.txt"].map((name) => ({
    name,
    content: readFileSync(resolve(dir, name), "utf8"),
  }));
  const { run_id } = await ok(page, "post", `/api/projects/${slug}/imports`, {
    experiment: "default",
    files,
  });
  await page.setViewportSize({ width: 1280, height: 700 });
  await page.goto(`/p/${slug}/runs/${run_id}`);
  const chart = page.locator('[data-testid="chart-target:vmstat:cpu"]');
  await expect(chart.locator("path.recharts-line-curve").first()).toBeVisible();
  await chart.scrollIntoViewIfNeeded();
  await page.evaluate(() => window.scrollBy(0, 200));
  const before = await page.evaluate(() => window.scrollY);
  expect(before).toBeGreaterThan(300);
  const box = await chart.locator(".recharts-surface").first().boundingBox();
  if (!box) throw new Error("no chart surface");
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width * 0.3, y);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.5, y, { steps: 5 });
  await page.mouse.move(box.x + box.width * 0.6, y, { steps: 5 });
  await page.mouse.up();
  await expect(page).toHaveURL(/[?&]t=/);
  await page.waitForTimeout(300);
  expect(Math.abs((await page.evaluate(() => window.scrollY)) - before)).toBeLessThan(5);
});

/** Stops a daemon this test started (SIGTERM: it closes its streams and exits), SIGKILL if it hangs. */
function stopProcess(child: ChildProcess, timeoutMs: number): Promise<void> {
  return new Promise((res) => {
    if (child.exitCode !== null || child.signalCode !== null) return res();
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("exit", () => {
      clearTimeout(timer);
      res();
    });
    child.kill("SIGTERM");
  });
}

test("a strace window that cannot fit in a short load says so on the run, not blaming the process", async ({
  page,
  baseURL,
}) => {
  // Two agent processes, a 1 s wrk and the run's judgement on a loaded 2-core machine.
  test.setTimeout(180_000);
  await logIn(page);
  const slug = `window-${Date.now().toString(36)}`;
  await ok(page, "post", "/api/projects", { name: slug, slug });
  const { token } = await ok(page, "post", `/api/projects/${slug}/tokens`, {
    name: "e2e agent",
    scopes: ["ingest", "read"],
  });
  // The agent a user downloads from the server, run as the quick start says.
  const dir = mkdtempSync(join(tmpdir(), "perflab-e2e-agent-"));
  const pyz = join(dir, "perflab-agent.pyz");
  const download = await page.request.get("/agent/perflab-agent.pyz");
  expect(download.status()).toBe(200);
  writeFileSync(pyz, await download.body());
  const env = { ...process.env, PERFLAB_SERVER: baseURL, PERFLAB_TOKEN: token };
  const log = openSync(join(dir, "daemon.log"), "a");
  // The window would trace the server under test; it must not start at all.
  const daemon = spawn(
    "python3",
    [
      pyz,
      "daemon",
      "--state-dir",
      join(dir, "daemon"),
      "--role",
      "proxy",
      "--poll-timeout",
      "2",
      "--heartbeat-interval",
      "1",
      "--collect",
      "strace-c:perflab:5",
    ],
    { env, stdio: ["ignore", log, log] },
  );
  try {
    // wrk's -d 1s tells the server (and so the daemon) the load's length: a 5 s window cannot fit.
    const out = await new Promise<string>((res, rej) =>
      execFile(
        "python3",
        [
          pyz,
          "run",
          "--state-dir",
          join(dir, "run"),
          "--project",
          slug,
          "--experiment",
          "short-load",
          "--wait-for",
          "proxy",
          "--json",
          "--",
          "wrk",
          "-t1",
          "-c2",
          "-d1s",
          `${baseURL}/api/health`,
        ],
        { env, timeout: 150_000 },
        (err, stdout, stderr) =>
          err
            ? rej(
                new Error(
                  `perflab-agent run: ${err.message}\n${stderr}\n${readFileSync(join(dir, "daemon.log"), "utf8")}`,
                ),
              )
            : res(stdout),
      ),
    );
    const { run_id, status } = JSON.parse(out.trim().split("\n").pop() ?? "{}") as {
      run_id: string;
      status: string;
    };
    expect(status).toBe("partial");

    await page.goto(`/p/${slug}/runs/${run_id}`);
    await expect(page.getByTestId("run-status")).toContainText(/partial/i);
    // The note is the agent's, in terms of the load (on a slow machine the run may end before the window's
    // start is even reached: that note is as clear).
    const notFit =
      /the load lasted 1 s: too short for a strace-c window .*make the load longer|the run ended before the strace-c window started/;
    await expect(page.getByTestId("run-reasons")).toContainText(notFit);
    await expect(page.getByRole("row", { name: /strace-c:perflab/ })).toContainText(notFit);
    await expect(page.getByText(/no system calls|produced no output|could not parse/)).toHaveCount(0);
  } finally {
    await stopProcess(daemon, 15_000);
    closeSync(log);
    rmSync(dir, { recursive: true, force: true });
  }
});
