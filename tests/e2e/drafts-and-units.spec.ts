// The Import page and profiles fit the way engineers work (issue 19, items 1, 7 and 9): the Import page
// offers the project's known roles and gives a tool's file the role last chosen for that tool, also
// after a reload; the files and fields being prepared survive a reload; a folded profile of perf's
// nanosecond periods uploaded as samples is flagged at once, and its unit is corrected later from the
// profile's page. Real server and database, the real capture's files.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect, type Locator, type Page, test } from "@playwright/test";
import { csrfHeaders, logIn, watchConsole } from "./session";

const CAPTURE = resolve(__dirname, "..", "fixtures", "captures", "nginx-proxy-buffers");
const RUN1 = join(CAPTURE, "default", "run1");

async function post(page: Page, url: string, data: unknown) {
  const r = await page.request.post(url, { data, headers: await csrfHeaders(page.context()) });
  if (!r.ok()) throw new Error(`${url}: HTTP ${r.status()} ${await r.text()}`);
  return r.json();
}

async function project(page: Page, prefix: string): Promise<string> {
  const slug = `${prefix}-${Date.now().toString(36)}`;
  await post(page, "/api/projects", { name: slug, slug });
  return slug;
}

/** The roles a file's role field offers (its datalist). */
async function offeredRoles(page: Page, input: Locator): Promise<string[]> {
  const list = await input.getAttribute("list");
  if (!list) throw new Error("the role field offers no list");
  return page
    .locator(`datalist[id="${list}"] option`)
    .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
}

test("the Import page offers the project's roles and remembers the last role per tool across a reload", async ({
  page,
}) => {
  await logIn(page);
  const errors = watchConsole(page);
  const slug = await project(page, "roles");
  // An earlier run put vmstat on a role of the project's own naming.
  await post(page, `/api/projects/${slug}/imports`, {
    experiment: "earlier",
    files: [
      { name: "wrk.txt", content: readFileSync(join(RUN1, "wrk.txt"), "utf8") },
      { name: "vmstat.txt", content: readFileSync(join(RUN1, "vmstat.txt"), "utf8"), role: "edge-lb" },
    ],
  });

  await page.goto(`/p/${slug}/import`);
  await page
    .getByLabel("Files to import")
    .setInputFiles([join(RUN1, "vmstat.txt"), join(RUN1, "pidstat.txt")]);
  const vmstat = page.getByTestId("import-file-vmstat.txt");
  await expect(vmstat.getByTestId("detected-kind")).toHaveText("vmstat");
  const vmRole = vmstat.getByLabel("Role of vmstat.txt");
  // Nothing chosen yet: the server's default, and the project's own role offered first.
  await expect(vmRole).toHaveValue("target");
  expect((await offeredRoles(page, vmRole))[0]).toBe("edge-lb");
  expect(await offeredRoles(page, vmRole)).toContain("loadgen");
  await vmRole.fill("edge-lb");
  await page.getByRole("button", { name: "Remove vmstat.txt" }).click();
  await page.getByRole("button", { name: "Remove pidstat.txt" }).click();
  await expect(vmstat).toHaveCount(0);

  await page.reload();
  await page
    .getByLabel("Files to import")
    .setInputFiles([join(RUN1, "vmstat.txt"), join(RUN1, "pidstat.txt")]);
  await expect(page.getByTestId("import-file-pidstat.txt").getByTestId("detected-kind")).toHaveText(
    "pidstat",
  );
  // vmstat gets the role chosen for vmstat; pidstat, never given one, keeps the default.
  await expect(page.getByLabel("Role of vmstat.txt")).toHaveValue("edge-lb");
  await expect(page.getByLabel("Role of pidstat.txt")).toHaveValue("target");
  expect(errors).toEqual([]);
});

test("the Import page keeps the files and fields being prepared across a reload", async ({ page }) => {
  await logIn(page);
  const errors = watchConsole(page);
  const slug = await project(page, "draft");
  await page.goto(`/p/${slug}/import`);
  await page.getByLabel("Files to import").setInputFiles([join(RUN1, "wrk.txt"), join(RUN1, "vmstat.txt")]);
  await expect(page.getByTestId("import-file-wrk.txt").getByTestId("detected-kind")).toHaveText("wrk");
  await page.getByLabel("Role of vmstat.txt").fill("proxy");
  await page.getByLabel("Experiment", { exact: true }).fill("bigger-buffers");
  await page.getByLabel("Run label (optional)").fill("after reboot");
  await page.getByLabel("Hypothesis of the new experiment (optional)").fill("Fewer readv calls");

  await page.reload();
  await expect(page.getByTestId("import-file-wrk.txt").getByTestId("detected-kind")).toHaveText("wrk");
  await expect(page.getByTestId("import-file-vmstat.txt").getByTestId("detected-kind")).toHaveText("vmstat");
  await expect(page.getByLabel("Role of vmstat.txt")).toHaveValue("proxy");
  await expect(page.getByLabel("Experiment", { exact: true })).toHaveValue("bigger-buffers");
  await expect(page.getByLabel("Run label (optional)")).toHaveValue("after reboot");
  await expect(page.getByLabel("Hypothesis of the new experiment (optional)")).toHaveValue(
    "Fewer readv calls",
  );

  // The kept draft imports like a fresh one, and is gone afterwards.
  await page.getByRole("button", { name: "Save run" }).click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}/);
  const runId = new URL(page.url()).pathname.split("/").pop();
  const run = await (await page.request.get(`/api/runs/${runId}`)).json();
  expect(run.label).toBe("after reboot");
  // vmstat's samples went in under the role chosen before the reload.
  const series = await (await page.request.get(`/api/runs/${runId}/series`)).json();
  expect(new Set(series.map((x: { source: string; role: string }) => `${x.source}:${x.role}`))).toEqual(
    new Set(["vmstat:proxy"]),
  );
  await page.goto(`/p/${slug}/import`);
  await expect(page.getByText("Nothing to import yet")).toBeVisible();
  expect(errors).toEqual([]);
});

test("a profile of nanosecond periods uploaded as samples is flagged, and its unit corrected later", async ({
  page,
}) => {
  await logIn(page);
  const errors = watchConsole(page);
  const slug = await project(page, "unit");
  const { run_id: runId } = await post(page, `/api/projects/${slug}/imports`, {
    experiment: "buffers-4x128k",
    files: [
      { name: "wrk.txt", content: readFileSync(join(CAPTURE, "buffers-4x128k", "run1", "wrk.txt"), "utf8") },
    ],
  });
  // perf's cpu-clock periods: every count a multiple of 2,004,008 ns, 3.8 s in all.
  const folded = join(CAPTURE, "buffers-4x128k", "stacks.folded");
  const total = readFileSync(folded, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);

  await page.goto(`/p/${slug}/runs/${runId}/profiles`);
  await page.getByLabel("Counts are").selectOption("samples");
  await page.getByLabel("Profile file").setInputFiles(folded);
  const done = page.getByRole("status").filter({ hasText: "uploaded" });
  await expect(done).toContainText(`${total.toLocaleString("en-US")} samples`);
  await expect(done.getByTestId("upload-warning")).toContainText("look like sampling periods");
  await expect(done.getByRole("button", { name: "Count as nanoseconds" })).toBeVisible();

  // Later (the upload's note is gone after a reload): the profile's page still flags it and corrects it.
  await page.reload();
  const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: "stacks" }) });
  await expect(row.getByTestId("unit-flag")).toBeVisible();
  await page.getByRole("link", { name: "stacks" }).click();
  const warnings = page.getByTestId("profile-warnings");
  await expect(warnings).toContainText("look like sampling periods");
  await expect(page.locator(".flame-meta")).toContainText(`total ${total.toLocaleString("en-US")} samples`);
  await page.getByLabel("Counts are").selectOption("nanoseconds");
  await expect(page.locator(".flame-meta")).toContainText(`total ${(total / 1e9).toFixed(2)} s`);
  await expect(warnings).toHaveCount(0);
  const profileId = new URL(page.url()).pathname.split("/").pop();
  const meta = await (await page.request.get(`/api/profiles/${profileId}`)).json();
  expect(meta.unit).toBe("nanoseconds");
  expect(meta.total).toBe(total);
  await page.reload();
  await expect(page.getByLabel("Counts are")).toHaveValue("nanoseconds");
  await page.getByRole("navigation", { name: "Breadcrumb" }).getByRole("link", { name: "Profiles" }).click();
  await expect(row).toContainText(`${(total / 1e9).toFixed(2)} s`);
  await expect(row.getByTestId("unit-flag")).toHaveCount(0);
  expect(errors).toEqual([]);
});
