// Findings on the page: import the proxy_buffers investigation (through the Import API, as the Import page
// does), then read the Findings panel at the top of the run page and of the comparison, follow an
// evidence link to its syscall row, and turn the suggestion into a decision in one click.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { csrfHeaders, logIn } from "./session";

const captures = resolve(__dirname, "..", "fixtures", "captures", "nginx-proxy-buffers");

function file(experiment: string, name: string, role?: string) {
  const path =
    name === "nginx.conf" ? join(captures, experiment, name) : join(captures, experiment, "run1", name);
  return { name, content: readFileSync(path, "utf8"), kind: "auto", ...(role ? { role } : {}) };
}

async function importRun(page: Page, slug: string, experiment: string): Promise<string> {
  const files = [
    file(experiment, "wrk.txt"),
    file(experiment, "vmstat.txt", "proxy"),
    file(experiment, "strace-c.txt", "proxy"),
  ];
  if (experiment !== "direct") files.push(file(experiment, "nginx.conf", "proxy"));
  const r = await page.request.post(`/api/projects/${slug}/imports`, {
    data: { experiment, files },
    headers: await csrfHeaders(page.context()),
  });
  expect(r.status()).toBe(201);
  return (await r.json()).run_id as string;
}

test("the run page names the knob, links the evidence and records the decision", async ({ page }) => {
  await logIn(page);
  const slug = `findings-${Date.now().toString(36)}`;
  const created = await page.request.post("/api/projects", {
    data: { name: slug, slug },
    headers: await csrfHeaders(page.context()),
  });
  expect(created.status()).toBe(201);
  await importRun(page, slug, "direct");
  const run = await importRun(page, slug, "default");

  await page.goto(`/p/${slug}/runs/${run}`);
  const panel = page.getByTestId("run-findings");
  const finding = panel.getByTestId("finding-copy-bound-proxy");
  await expect(finding).toContainText("nginx copies responses through small proxy buffers");
  await expect(finding).toContainText("proxy_buffers 8 4k (default) → 4 128k");

  // The readv evidence points at the strace -c row of the same page.
  await finding.getByRole("link", { name: "readv", exact: true }).click();
  await expect(page).toHaveURL(/#syscall-readv$/);
  await expect(page.locator("#syscall-readv")).toBeVisible();

  // One click: the decision form opens with the knob, before and after filled in.
  await finding.getByRole("button", { name: "Make a decision" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog.getByLabel("Knob")).toHaveValue("proxy_buffers");
  await expect(dialog.getByLabel("Before")).toHaveValue("8 4k (default)");
  await expect(dialog.getByLabel("After")).toHaveValue("4 128k");
  await dialog.getByRole("button", { name: "Save decision" }).click();
  await expect(dialog).toBeHidden();
  const decisions = await page.request.get(`/api/projects/${slug}/decisions`);
  const saved = (await decisions.json()) as { knob: string; after: string; experiment_name: string }[];
  expect(saved.map((d) => [d.experiment_name, d.knob, d.after])).toEqual([
    ["default", "proxy_buffers", "4 128k"],
  ]);

  // The comparison shows what appeared against the healthy baseline.
  await page.goto(`/p/${slug}/compare?e=direct&e=default&base=direct`);
  const cmp = page.getByTestId("compare-findings");
  await expect(cmp.getByTestId("findings-default")).toContainText("appeared: copy-bound-proxy");
  // One line per experiment until opened, after the results table.
  await expect(cmp.getByTestId("findings-default")).not.toHaveAttribute("open");
  await expect(cmp.getByTestId("findings-default").locator("summary")).toContainText("1 finding");
  const table = await page.getByRole("table", { name: "Results" }).boundingBox();
  expect((await cmp.boundingBox())?.y ?? 0).toBeGreaterThan(table?.y ?? 9999);
  await expect(cmp.getByTestId("findings-default").getByTestId("finding-copy-bound-proxy")).toContainText(
    "4 128k",
  );
});
