// What a first week of use runs into: a time range dragged on one chart zooms every chart and survives a
// reload, notes sit on the run and experiment pages, a run opened under the wrong project moves to its
// own, missing pages say so once without a useless Retry, pages name themselves, nothing scrolls
// sideways on a 390 px phone, and normal use logs no console errors.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { csrfHeaders, drag, logIn, watchConsole } from "./session";

const RUN1 = resolve(__dirname, "..", "fixtures", "captures", "nginx-proxy-buffers", "default", "run1");

async function createProject(page: Page, prefix: string): Promise<string> {
  const slug = `${prefix}-${Date.now().toString(36)}${Math.floor(Math.random() * 1000)}`;
  const r = await page.request.post("/api/projects", {
    data: { name: slug, slug, description: "Proxy **throughput** under `proxy_buffers`" },
    headers: await csrfHeaders(page.context()),
  });
  expect(r.status()).toBe(201);
  return slug;
}

/** One run of the real capture (wrk, vmstat, pidstat), imported through the API. */
async function importRun(
  page: Page,
  slug: string,
  experiment = "default",
): Promise<{ runId: string; experimentId: number }> {
  const files = ["wrk.txt", "vmstat.txt", "pidstat.txt"].map((name) => ({
    name,
    content: readFileSync(join(RUN1, name), "utf8"),
    role: name === "wrk.txt" ? "loadgen" : "proxy",
  }));
  const r = await page.request.post(`/api/projects/${slug}/imports`, {
    data: { experiment, label: experiment, hypothesis: "The *default* buffers copy in 4k pieces", files },
    headers: await csrfHeaders(page.context()),
  });
  expect(r.status(), await r.text()).toBe(201);
  const body = await r.json();
  return { runId: body.run_id, experimentId: body.experiment_id };
}

/** The time window every chart of the run shows, read from its slider semantics. */
async function windows(page: Page): Promise<string[]> {
  const sliders = page.getByRole("slider", { name: /time cursor/ });
  const n = await sliders.count();
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const s = sliders.nth(i);
    out.push(`${await s.getAttribute("aria-valuemin")}..${await s.getAttribute("aria-valuemax")}`);
  }
  return out;
}

test("a range dragged on one run chart zooms every chart, survives reload, and double-click resets", async ({
  page,
}) => {
  await logIn(page);
  const slug = await createProject(page, "range");
  const { runId } = await importRun(page, slug);
  const errors = watchConsole(page);

  await page.goto(`/p/${slug}/runs/${runId}`);
  await expect(page).toHaveTitle(/default · range-.* · perflab/);
  const sliders = page.getByRole("slider", { name: /time cursor/ });
  await expect.poll(() => sliders.count()).toBeGreaterThan(1);
  const whole = await windows(page);
  expect(new Set(whole).size).toBe(1);

  await drag(sliders.first(), 0.3, 0.6, page);
  await expect(page).toHaveURL(/[?&]t=\d+(\.\d)?-\d+(\.\d)?/);
  await expect(page.getByTestId("time-range")).toBeVisible();
  const zoomed = await windows(page);
  // Every chart shows the same, narrower window.
  expect(new Set(zoomed).size).toBe(1);
  expect(zoomed[0]).not.toBe(whole[0]);
  const [lo, hi] = (zoomed[0] ?? "").split("..").map(Number);
  const [wlo, whi] = (whole[0] ?? "").split("..").map(Number);
  expect(lo).toBeGreaterThan(wlo as number);
  expect(hi).toBeLessThan(whi as number);

  await page.reload();
  await expect.poll(() => windows(page)).toEqual(zoomed);

  await sliders.last().dblclick();
  await expect(page).not.toHaveURL(/[?&]t=/);
  await expect.poll(() => windows(page)).toEqual(whole);
  expect(errors).toEqual([]);
});

test("a range dragged on a comparison overlay zooms the overlays and stays in the link", async ({ page }) => {
  await logIn(page);
  const slug = await createProject(page, "overlay");
  await importRun(page, slug, "default");
  await importRun(page, slug, "again");
  await page.goto(`/p/${slug}/compare?e=again&base=default`);
  const chart = page.getByTestId("overlay-chart").first();
  await chart.scrollIntoViewIfNeeded();
  const surface = chart.locator(".recharts-surface");
  await expect(surface).toBeVisible();
  await drag(surface, 0.3, 0.7, page);
  await expect(page).toHaveURL(/[?&]t=\d+(\.\d)?-\d+(\.\d)?/);
  const chip = chart.getByTestId("overlay-range");
  await expect(chip).toHaveText(/^\d+:\d\d–\d+:\d\d · whole run$/);
  const shown = await chip.textContent();
  const url = page.url();
  await page.reload();
  expect(page.url()).toBe(url);
  await expect(page.getByTestId("overlay-chart").first().getByTestId("overlay-range")).toHaveText(
    shown ?? "",
  );
  await page.getByTestId("overlay-chart").first().getByTestId("overlay-range").click();
  await expect(page).not.toHaveURL(/[?&]t=/);
});

test("a note written with a range selected covers it, and shows on the run and experiment pages", async ({
  page,
}) => {
  await logIn(page);
  const slug = await createProject(page, "notes");
  const { runId, experimentId } = await importRun(page, slug);

  await page.goto(`/p/${slug}/runs/${runId}?t=5-15`);
  const panel = page.getByTestId("notes-decisions");
  await expect(panel).toContainText("No notes yet");
  await expect(panel).toContainText("covers 0:05–0:15");
  await panel.getByLabel("Add a note (Markdown)").fill("sy **jumps** here");
  await panel.getByRole("button", { name: "Add note" }).click();
  const note = panel.getByTestId("note");
  await expect(note).toContainText("0:05–0:15");
  await expect(note.locator("strong")).toHaveText("jumps");

  await page.goto(`/p/${slug}/experiments/${experimentId}`);
  await expect(page).toHaveTitle(`default · ${slug} · perflab`);
  // The hypothesis is Markdown, rendered.
  await expect(page.locator("dd em", { hasText: "default" })).toBeVisible();
  const onExperiment = page.getByTestId("notes-decisions").getByTestId("note");
  await expect(onExperiment).toContainText(`run ${runId.slice(0, 8)}`);
  await expect(onExperiment).toContainText("sy jumps here");

  // The project list renders its description's Markdown too.
  await page.goto("/projects");
  await expect(page.getByRole("row", { name: new RegExp(slug) }).locator("strong")).toHaveText("throughput");
});

test("a run opened under another project's address moves to its own project", async ({ page }) => {
  await logIn(page);
  const home = await createProject(page, "home");
  const other = await createProject(page, "other");
  const { runId } = await importRun(page, home);
  await page.goto(`/p/${other}/runs/${runId}?t=2-8`);
  await expect(page).toHaveURL(new RegExp(`/p/${home}/runs/${runId}\\?t=2-8$`));
  await expect(page.getByRole("link", { name: "Experiments" }).first()).toHaveAttribute("href", `/p/${home}`);
});

test("a missing run says so once, with no Retry, and the page is titled", async ({ page }) => {
  await logIn(page);
  const slug = await createProject(page, "missing");
  await page.goto(`/p/${slug}/runs/${randomUUID()}`);
  await expect(page.getByRole("alert")).toHaveCount(1);
  await expect(page.getByRole("alert")).toContainText("Not found");
  await expect(page.getByRole("button", { name: "Retry" })).toHaveCount(0);

  await page.goto("/no/such/page");
  await expect(page).toHaveTitle("Page not found · perflab");
});

test("no console errors from the login gate or a lazy page opened directly", async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = watchConsole(page);
  await page.goto("/");
  await expect(page).toHaveURL(/\/login/);
  await expect(page).toHaveTitle("Log in · perflab");
  await logIn(page);
  const slug = await createProject(page, "console");
  const { runId } = await importRun(page, slug);
  // A direct load of a lazily loaded page (what a pasted link does).
  await page.goto(`/p/${slug}/runs/${runId}`);
  await expect(page.getByRole("slider", { name: /time cursor/ }).first()).toBeVisible();
  await page.goto(`/p/${slug}/import`);
  await expect(page.getByLabel("Files to import")).toBeAttached();
  expect(errors).toEqual([]);
  await context.close();
});

test("the main pages fit a 390 px wide phone without scrolling sideways", async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await page.goto("/login");
  const overflow = () =>
    page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(await overflow()).toBeLessThanOrEqual(0);
  await logIn(page);
  const slug = await createProject(page, "phone");
  const { runId, experimentId } = await importRun(page, slug);
  const pages: [string, string][] = [
    ["/projects", "Projects"],
    [`/p/${slug}`, "Experiments"],
    [`/p/${slug}/experiments/${experimentId}`, "Runs"],
    [`/p/${slug}/runs/${runId}`, "Charts"],
    [`/p/${slug}/compare?e=default&base=default`, "default"],
    [`/p/${slug}/import`, "Import"],
    [`/p/${slug}/hosts`, "Hosts"],
    [`/p/${slug}/tokens`, "token"],
  ];
  for (const [path, text] of pages) {
    await page.goto(path);
    await expect(page.getByText(text).first()).toBeVisible();
    // Let late content (charts, tables) lay out before measuring.
    await page.waitForLoadState("networkidle");
    expect(await overflow(), `${path} scrolls sideways at 390 px`).toBeLessThanOrEqual(0);
  }
  await context.close();
});
