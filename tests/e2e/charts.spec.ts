// What the charts say about the time on screen (issue 19, item 4): a zoomed run chart's legend gives each
// series' median and min–max over the zoomed window only (checked against the run's own series from the
// API) and the whole run again after a reset; an overlay of 4 experiments x 3 runs opens one tooltip,
// on the chart under the pointer, with one row per experiment, and the runs on demand.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect, test } from "@playwright/test";
import { formatCompact } from "../../frontend/src/lib/format";
import { EXPERIMENTS, loadInvestigation, ok } from "./investigation";
import { csrfHeaders, drag, logIn, watchConsole } from "./session";

const RUN1 = resolve(__dirname, "..", "fixtures", "captures", "nginx-proxy-buffers", "default", "run1");

/** The legend's "median (min–max)" of the samples in [lo, hi], computed here from the API's numbers. */
function expectedLegend(t: number[], v: number[], lo: number, hi: number): string {
  const inside = v.filter((_, i) => (t[i] as number) >= lo && (t[i] as number) <= hi).sort((a, b) => a - b);
  const n = inside.length;
  if (!n) return "—";
  const mid = Math.floor(n / 2);
  const median =
    n % 2 ? (inside[mid] as number) : ((inside[mid - 1] as number) + (inside[mid] as number)) / 2;
  return `${formatCompact(median)}% (${formatCompact(inside[0])}–${formatCompact(inside[n - 1])}%)`;
}

test("a zoomed run chart's legend summarises the zoomed window, and the whole run after a reset", async ({
  page,
}) => {
  await logIn(page);
  const errors = watchConsole(page);
  const slug = `legend-${Date.now().toString(36)}`;
  await ok(
    page.request.post("/api/projects", {
      data: { name: slug, slug },
      headers: await csrfHeaders(page.context()),
    }),
    "create project",
  );
  const files = ["wrk.txt", "vmstat.txt", "pidstat.txt"].map((name) => ({
    name,
    content: readFileSync(join(RUN1, name), "utf8"),
  }));
  const { run_id: runId } = await ok(
    page.request.post(`/api/projects/${slug}/imports`, {
      data: { experiment: "default", files },
      headers: await csrfHeaders(page.context()),
    }),
    "import",
  );
  // The CPU chart's series, as the API serves them to the chart.
  const list = (await ok(page.request.get(`/api/runs/${runId}/series`), "series")) as {
    id: number;
    source: string;
    metric: string;
  }[];
  const cpu = list.filter((s) => s.source === "vmstat" && ["us", "sy", "id", "wa", "st"].includes(s.metric));
  expect(cpu.length).toBeGreaterThanOrEqual(4);
  const data = (await ok(
    page.request.get(
      `/api/runs/${runId}/series/data?${cpu.map((s) => `ids=${s.id}`).join("&")}&max_points=2000`,
    ),
    "series data",
  )) as { series: { id: number; t: number[]; v: number[] }[] };
  const byMetric = new Map(
    cpu.map((s) => [s.metric, data.series.find((d) => d.id === s.id) as { t: number[]; v: number[] }]),
  );
  const expectAll = (lo: number, hi: number) =>
    new Map([...byMetric].map(([m, d]) => [m, expectedLegend(d.t, d.v, lo, hi)]));

  await page.goto(`/p/${slug}/runs/${runId}`);
  const chart = page.getByTestId("chart-target:vmstat:cpu");
  await expect(chart.locator("path.recharts-line-curve").first()).toBeVisible();
  const heading = chart.getByTestId("legend-window");
  const legendValue = (metric: string) =>
    chart
      .locator(".mchart-legend-item")
      .filter({ has: page.locator(".mchart-legend-label", { hasText: new RegExp(`^${metric}$`) }) })
      .locator(".mchart-legend-value");
  const readLegend = async () => {
    const out = new Map<string, string>();
    for (const m of byMetric.keys()) out.set(m, (await legendValue(m).textContent()) ?? "");
    return out;
  };

  const whole = expectAll(Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY);
  await expect(heading).toHaveText("whole run · median (min–max)");
  await expect.poll(readLegend).toEqual(whole);

  await drag(chart.getByRole("slider"), 0.3, 0.6, page);
  await expect(page).toHaveURL(/[?&]t=\d+(\.\d)?-\d+(\.\d)?/);
  // Off the chart, the legend summarises instead of reading the value under the cursor.
  await page.mouse.move(0, 0);
  const [lo, hi] = (new URL(page.url()).searchParams.get("t") ?? "").split("-").map(Number) as [
    number,
    number,
  ];
  const zoomed = expectAll(lo, hi);
  // The window was chosen so that its figures differ from the whole run's: the check can fail.
  expect([...zoomed.values()]).not.toEqual([...whole.values()]);
  await expect(heading).toHaveText(`${lo.toFixed(1)}–${hi.toFixed(1)} s · median (min–max)`);
  await expect.poll(readLegend).toEqual(zoomed);
  // Every chart of the run states the same window.
  await expect(page.getByTestId("chart-target:pidstat:cpu_pct").getByTestId("legend-window")).toHaveText(
    `${lo.toFixed(1)}–${hi.toFixed(1)} s · median (min–max)`,
  );

  await chart.getByRole("slider").dblclick();
  await page.mouse.move(0, 0);
  await expect(page).not.toHaveURL(/[?&]t=/);
  await expect(heading).toHaveText("whole run · median (min–max)");
  await expect.poll(readLegend).toEqual(whole);
  expect(errors).toEqual([]);
});

test("an overlay of 4 experiments x 3 runs opens one tooltip, one row per experiment, runs on demand", async ({
  page,
  playwright,
  baseURL,
}) => {
  test.setTimeout(120_000);
  await logIn(page);
  const errors = watchConsole(page);
  const csrf = (await page.context().cookies()).find((c) => c.name === "perflab_csrf")?.value ?? "";
  const slug = `tooltip-${Date.now().toString(36)}`;
  await ok(
    page.request.post("/api/projects", { data: { name: slug, slug }, headers: { "X-CSRF-Token": csrf } }),
    "create project",
  );
  const agent = await playwright.request.newContext({ baseURL });
  await loadInvestigation(page.request, agent, slug, csrf);
  await agent.dispose();
  const others = EXPERIMENTS.filter((e) => e !== "direct");
  await page.goto(`/p/${slug}/compare?${others.map((e) => `e=${e}`).join("&")}&base=direct`);

  const sy = page.locator('[data-metric="proxy:vmstat.sy"]');
  const us = page.locator('[data-metric="proxy:vmstat.us"]');
  await sy.scrollIntoViewIfNeeded();
  const surface = sy.locator(".recharts-surface");
  await expect(surface).toBeVisible();
  await expect(us.locator(".recharts-surface")).toBeVisible();
  const charts = await page.locator('[data-testid="overlay-chart"] .recharts-surface').count();
  expect(charts).toBeGreaterThan(1);

  const hover = async () => {
    await page.mouse.move(0, 0);
    const box = await surface.boundingBox();
    if (!box) throw new Error("no overlay surface");
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5, { steps: 3 });
  };
  await hover();
  // One tooltip on the page (the hovered chart's), while the other charts' cursors follow.
  const tooltip = page.getByTestId("overlay-tooltip");
  await expect(tooltip).toHaveCount(1);
  await expect(sy.getByTestId("overlay-tooltip")).toBeVisible();
  await expect(us.locator(".recharts-tooltip-cursor")).toHaveCount(1);
  const rows = tooltip.getByTestId("overlay-tooltip-row");
  await expect(rows).toHaveCount(EXPERIMENTS.length);
  // Baseline first, then the experiments in the order compared; each the median of its 3 runs.
  await expect(rows).toHaveText(EXPERIMENTS.map((e) => new RegExp(`^${e} · 3 runs`)));

  // The runs on demand, from the keyboard.
  const toggle = page.getByTestId("overlay-show-runs");
  await expect(toggle).toHaveAttribute("aria-pressed", "false");
  await toggle.focus();
  await page.keyboard.press("Space");
  await expect(toggle).toHaveAttribute("aria-pressed", "true");
  await hover();
  await expect(tooltip).toHaveCount(1);
  await expect(rows).toHaveCount(EXPERIMENTS.length * 3);
  await expect(rows.first()).toHaveText(/^direct · run 1/);

  await toggle.focus();
  await page.keyboard.press("Enter");
  await hover();
  await expect(rows).toHaveCount(EXPERIMENTS.length);
  expect(errors).toEqual([]);
});
