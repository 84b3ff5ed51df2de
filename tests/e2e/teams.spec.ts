// Teams and history: roles decide what a user sees and may do (a viewer can't write, a member of one
// project can't see another), and the trend page shows a change point on a history with a real shift.
// Runs against a real server and database; the runs are imported wrk outputs (the real capture
// tests/fixtures/captures/nginx-proxy-buffers/default/run1/wrk.txt with its Requests/sec set).
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { type APIRequestContext, type Browser, expect, type Page, test } from "@playwright/test";
import { adminEmail, adminPassword, logIn } from "./session";

const WRK = readFileSync(
  resolve(__dirname, "..", "fixtures", "captures", "nginx-proxy-buffers", "default", "run1", "wrk.txt"),
  "utf8",
);
const PASSWORD = "a long enough password 1";

async function csrfOf(page: Page): Promise<string> {
  return (await page.context().cookies()).find((c) => c.name === "perflab_csrf")?.value ?? "";
}

async function ok(res: Promise<import("@playwright/test").APIResponse>, what: string) {
  const r = await res;
  if (!r.ok()) throw new Error(`${what}: HTTP ${r.status()} ${await r.text()}`);
  return r.json();
}

function wrkOutput(rps: number, p99: number): string {
  return WRK.replace("Requests/sec:   5627.00", `Requests/sec:   ${rps.toFixed(2)}`)
    .replace("56497 requests in 10.04s", `${Math.round(rps * 10.04)} requests in 10.04s`)
    .replace("99%  178.57ms", `99%  ${p99.toFixed(2)}ms`);
}

async function importRun(
  api: APIRequestContext,
  csrf: string,
  slug: string,
  experiment: string,
  wrk: string,
) {
  return ok(
    api.post(`/api/projects/${slug}/imports`, {
      data: { experiment, label: "r", files: [{ name: "wrk.txt", content: wrk }] },
      headers: { "X-CSRF-Token": csrf },
    }),
    `import ${experiment}`,
  );
}

async function asUser(browser: Browser, email: string): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await logIn(page, email, PASSWORD);
  return page;
}

test("a viewer can't write, and a member of one project can't see another", async ({ page, browser }) => {
  const u = Date.now().toString(36);
  await logIn(page, adminEmail(), adminPassword());
  const csrf = await csrfOf(page);
  const headers = { "X-CSRF-Token": csrf };
  const a = (await ok(page.request.post("/api/projects", { data: { name: `team a ${u}` }, headers }), "A"))
    .slug;
  const b = (await ok(page.request.post("/api/projects", { data: { name: `team b ${u}` }, headers }), "B"))
    .slug;
  for (const who of ["viewer", "member"]) {
    await ok(
      page.request.post("/api/users", {
        data: { email: `${who}-${u}@example.test`, password: PASSWORD, role: "member" },
        headers,
      }),
      `user ${who}`,
    );
  }
  await importRun(page.request, csrf, a, "baseline", wrkOutput(10000, 180));
  await importRun(page.request, csrf, b, "secret", wrkOutput(9000, 190));

  // The owner (here the admin who created A) adds both on the Members tab.
  await page.goto(`/p/${a}`);
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Members" }).click();
  await expect(page).toHaveURL(new RegExp(`/p/${a}/members$`));
  for (const who of ["viewer", "member"]) {
    const form = page.getByRole("form", { name: "Add member" });
    await form.getByLabel("Email").fill(`${who}-${u}@example.test`);
    await form.getByLabel("Role").selectOption(who);
    await form.getByRole("button", { name: "Add member" }).click();
    await expect(page.getByRole("table", { name: "Members" })).toContainText(`${who}-${u}@example.test`);
  }

  // The viewer: sees A read-only, no Tokens tab, no way to add members; B does not exist.
  const viewer = await asUser(browser, `viewer-${u}@example.test`);
  await expect(viewer.getByRole("link", { name: `team a ${u}` })).toBeVisible();
  await expect(viewer.getByRole("link", { name: `team b ${u}` })).toHaveCount(0);
  await viewer.goto(`/p/${a}`);
  await expect(viewer.getByRole("row", { name: /baseline/ })).toBeVisible();
  await expect(viewer.getByText("read only")).toBeVisible();
  await expect(viewer.getByRole("button", { name: "New experiment" })).toHaveCount(0);
  await expect(viewer.getByRole("link", { name: "Import results" })).toHaveCount(0);
  const tabs = viewer.getByRole("navigation", { name: "Project" });
  await expect(tabs.getByRole("link", { name: "Members" })).toBeVisible();
  await expect(tabs.getByRole("link", { name: "Tokens" })).toHaveCount(0);
  await tabs.getByRole("link", { name: "Members" }).click();
  await expect(viewer.getByText("You are a viewer here.")).toBeVisible();
  await expect(viewer.getByRole("form", { name: "Add member" })).toHaveCount(0);
  // The server refuses the write the UI does not offer.
  const refused = await viewer.request.post(`/api/projects/${a}/experiments`, {
    data: { name: "sneaky" },
    headers: { "X-CSRF-Token": await csrfOf(viewer) },
  });
  expect(refused.status()).toBe(403);
  await viewer.goto(`/p/${b}`);
  await expect(viewer.getByRole("alert")).toContainText("Not found");
  await expect(viewer.getByText("secret")).toHaveCount(0);

  // The member of A: may write in A, and B is as absent for them as for the viewer.
  const member = await asUser(browser, `member-${u}@example.test`);
  await expect(member.getByRole("link", { name: `team b ${u}` })).toHaveCount(0);
  await member.goto(`/p/${a}`);
  await expect(member.getByRole("button", { name: "New experiment" })).toBeVisible();
  await member.goto(`/p/${b}`);
  await expect(member.getByRole("alert")).toContainText("Not found");
  const runOfB = await member.request.get(`/api/projects/${b}/runs`);
  expect(runOfB.status()).toBe(404);
});

test("the trend page shows the change point of a history with a real shift", async ({ page }) => {
  const u = Date.now().toString(36);
  await logIn(page, adminEmail(), adminPassword());
  const csrf = await csrfOf(page);
  const { slug } = await ok(
    page.request.post("/api/projects", { data: { name: `history ${u}` }, headers: { "X-CSRF-Token": csrf } }),
    "project",
  );
  // 12 experiments of 2 runs: about 10,000 req/s for six, about 7,000 after; a fixed +-4% wobble.
  const wobble = [0.97, 1.03, 1.01, 0.96, 1.04, 0.99, 1.02, 0.98, 1.0, 1.03, 0.97, 1.01];
  for (let i = 0; i < 12; i++) {
    const level = i < 6 ? 10000 : 7000;
    for (const k of [0, 1]) {
      const w = wobble[(i + k * 5) % 12] ?? 1;
      await importRun(
        page.request,
        csrf,
        slug,
        `exp-${String(i + 1).padStart(2, "0")}`,
        wrkOutput(level * w, 180 * (2 - w)),
      );
    }
  }

  // The history list marks where requests/sec changed level.
  await page.goto(`/p/${slug}`);
  await expect(
    page.getByRole("row", { name: /exp-07/ }).getByRole("link", { name: /^change -2\d\.\d%$/ }),
  ).toBeVisible();
  await expect(page.getByRole("link", { name: /^change / })).toHaveCount(1);
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Trends" }).click();
  await expect(page).toHaveURL(new RegExp(`/p/${slug}/trends$`));
  await expect(page.getByLabel("Metric")).toHaveValue("wrk.requests_per_sec");
  const chart = page.getByRole("figure", { name: "requests/sec across experiments" });
  await expect(chart).toHaveAttribute("data-points", "24");
  await expect(chart).toHaveAttribute("data-changes", "1");
  await expect(chart.locator(".recharts-reference-line")).toHaveCount(1);
  const change = page.getByTestId("change-point");
  await expect(change).toHaveCount(1);
  await expect(change).toContainText("exp-07");
  await expect(change).toContainText(/-(2[5-9]|3[0-5])\.\d%/); // about -30 %
  await expect(page.getByRole("row", { name: /exp-07.*change/ })).toBeVisible();

  // The metric is in the URL and survives a reload; p99 did not move: no change point.
  await page.getByLabel("Metric").selectOption("wrk.latency_p99_ms");
  await expect(page).toHaveURL(/metric=wrk\.latency_p99_ms/);
  await page.reload();
  await expect(page.getByLabel("Metric")).toHaveValue("wrk.latency_p99_ms");
  await expect(page.getByText("No change point")).toBeVisible();
  await expect(page.getByTestId("change-point")).toHaveCount(0);

  // From the change to the comparison of the experiments on each side of it.
  await page.goBack();
  await expect(page.getByLabel("Metric")).toHaveValue("wrk.requests_per_sec");
  await page.getByRole("link", { name: "compare exp-06 → exp-07" }).click();
  await expect(page).toHaveURL(/\/compare\?e=\d+&e=\d+&base=\d+$/);
  const results = page.getByRole("table", { name: "Results" });
  await expect(results.getByRole("columnheader", { name: /^exp-06 baseline/ })).toBeVisible();
  await expect(results.getByRole("row", { name: /Requests\/sec.*-2\d\.\d%.*worse/ })).toBeVisible();
});

test("a short trend is too short to judge; its sensitivity stays in the link", async ({ page }) => {
  const u = Date.now().toString(36);
  await logIn(page, adminEmail(), adminPassword());
  const csrf = await csrfOf(page);
  const { slug } = await ok(
    page.request.post("/api/projects", { data: { name: `short ${u}` }, headers: { "X-CSRF-Token": csrf } }),
    "project",
  );
  // 4 experiments of 2 runs: too few to show any step (3 before and 3 after one are needed).
  const levels = [10000, 10200, 7600, 7500];
  for (let i = 0; i < levels.length; i++) {
    for (const w of [0.99, 1.01]) {
      await importRun(page.request, csrf, slug, `short-${i + 1}`, wrkOutput((levels[i] ?? 0) * w, 180));
    }
  }
  await page.goto(`/p/${slug}/trends`);
  const summary = page.getByTestId("change-point-summary");
  await expect(summary).toContainText("Too short to judge a change of any size");
  await expect(summary).toContainText("this history has 4");
  await expect(summary).not.toContainText("consistent with noise");

  // The sensitivity is a control, kept in the link across a reload.
  await page.getByLabel("Change-point sensitivity").selectOption("0.01");
  await expect(page).toHaveURL(/alpha=0\.01/);
  await page.reload();
  await expect(page.getByLabel("Change-point sensitivity")).toHaveValue("0.01");
  await expect(page.getByTestId("change-point-summary")).toContainText("Too short to judge");
});

test("owners add and delete webhooks on the Alerts tab; a viewer sees no controls", async ({
  page,
  browser,
}) => {
  const u = Date.now().toString(36);
  await logIn(page, adminEmail(), adminPassword());
  const csrf = await csrfOf(page);
  const headers = { "X-CSRF-Token": csrf };
  const { slug } = await ok(
    page.request.post("/api/projects", { data: { name: `alerts ${u}` }, headers }),
    "project",
  );
  const email = `alert-viewer-${u}@example.test`;
  await ok(
    page.request.post("/api/users", { data: { email, password: PASSWORD, role: "member" }, headers }),
    "user",
  );
  await ok(
    page.request.post(`/api/projects/${slug}/members`, { data: { email, role: "viewer" }, headers }),
    "add",
  );

  await page.goto(`/p/${slug}`);
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Alerts" }).click();
  await expect(page).toHaveURL(new RegExp(`/p/${slug}/alerts$`));
  const form = page.getByRole("form", { name: "Create webhook" });
  await form.getByLabel("Name").fill("perf channel");
  await form.getByLabel("URL").fill("ftp://example.test/hook");
  await form.getByRole("button", { name: "Add webhook" }).click();
  await expect(page.getByRole("alert").first()).toContainText("http");
  await form.getByLabel("URL").fill("http://127.0.0.1:9/hook");
  await form.getByLabel("Body").selectOption("slack");
  await form.getByRole("button", { name: "Add webhook" }).click();
  const secret = page.getByTestId("webhook-secret");
  await expect(secret).toHaveText(/^[0-9a-f]{64}$/);
  await page.getByRole("button", { name: "I have copied it" }).click();
  const table = page.getByRole("table", { name: "Webhooks" });
  await expect(table).toContainText("perf channel");
  await expect(table).toContainText("change_point");
  await expect(page.getByTestId("last-delivery")).toContainText("none yet");
  await expect(page.getByText(/^[0-9a-f]{64}$/)).toHaveCount(0); // shown once

  const viewer = await asUser(browser, email);
  await viewer.goto(`/p/${slug}/alerts`);
  await expect(viewer.getByText("Webhooks are managed by the project's owners")).toBeVisible();
  await expect(viewer.getByRole("form", { name: "Create webhook" })).toHaveCount(0);
  await expect(viewer.getByRole("button", { name: /Delete webhook/ })).toHaveCount(0);

  await page.getByRole("button", { name: "Delete webhook perf channel" }).click();
  await expect(page.getByText("No webhooks yet")).toBeVisible();
});
