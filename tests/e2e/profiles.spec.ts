// Flame graphs end to end, on the real nginx-proxy-buffers profiles: upload through the UI (drag and
// drop of the gzipped perf script of `default`, file picker for the folded stacks of `buffers-4x128k`),
// view, search (the percentage must match the flame graph model on the same stacks), zoom, hover,
// functions and sandwich, then the differential and side-by-side comparison. A frame named like an
// XSS payload stays text.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect, type Page, test } from "@playwright/test";
import {
  children,
  compileSearch,
  findPath,
  layoutTree,
  nameOf,
  searchTree,
  treeFromFolded,
} from "../../frontend/src/lib/flamegraph";
import { logIn } from "./session";

const CAPTURE = resolve(__dirname, "..", "fixtures", "captures", "nginx-proxy-buffers");
const XSS = "<img src=x onerror=alert(1)>";
const SHOTS = process.env.PERFLAB_E2E_SCREENSHOTS;
const ROW = 18; // ROW_HEIGHT of the renderer

/** JSON API calls with the session of the page (state changes carry the CSRF cookie's token). */
async function apiPost(page: Page, url: string, data: unknown) {
  const csrf = (await page.context().cookies()).find((c) => c.name === "perflab_csrf")?.value ?? "";
  const r = await page.request.post(url, { data, headers: { "X-CSRF-Token": csrf } });
  if (!r.ok()) throw new Error(`${url}: HTTP ${r.status()} ${await r.text()}`);
  return r.json();
}

async function importRun(page: Page, slug: string, experiment: string): Promise<string> {
  const wrk = readFileSync(join(CAPTURE, experiment, "run1", "wrk.txt"), "utf8");
  const res = await apiPost(page, `/api/projects/${slug}/imports`, {
    experiment,
    label: "run1",
    files: [{ name: "wrk.txt", content: wrk, role: "loadgen" }],
  });
  return res.run_id as string;
}

/** Drops a file on an element the way a browser does (a DataTransfer holding a File). */
async function dropFile(page: Page, testId: string, path: string, name: string) {
  const b64 = readFileSync(path).toString("base64");
  const dataTransfer = await page.evaluateHandle(
    ({ b64, name }) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], name));
      return dt;
    },
    { b64, name },
  );
  await page.getByTestId(testId).dispatchEvent("drop", { dataTransfer });
}

/** Page coordinates of a frame's centre in a flame-oriented graph, computed with the same model. */
async function framePoint(page: Page, canvasLabel: string, folded: string, path: string[]) {
  const canvas = page.getByRole("application", { name: canvasLabel, exact: true });
  // The root rows are at the bottom of the canvas: bring that edge into the window.
  await canvas.evaluate((el) => el.scrollIntoView({ block: "end" }));
  const box = await canvas.boundingBox();
  if (!box) throw new Error("no canvas");
  const tree = treeFromFolded(folded);
  const node = findPath(tree, path).node;
  const layout = layoutTree(tree, { widthPx: Math.floor(box.width), minWidthPx: 0.5 });
  const k = layout.slotOf[node] as number;
  const x = ((layout.x[k] as number) + (layout.w[k] as number) / 2) * box.width;
  // Flame graphs keep the root row at the bottom of the visible area.
  const depth = tree.depth[node] as number;
  const y = box.height - (depth + 1) * ROW + ROW / 2;
  return { x: box.x + x, y: box.y + y };
}

test("upload, view, search, zoom, sandwich and diff two real profiles", async ({ page }) => {
  test.setTimeout(120_000);
  const dialogs: string[] = [];
  page.on("dialog", async (d) => {
    dialogs.push(d.message());
    await d.dismiss();
  });
  await logIn(page);
  const unique = Date.now().toString(36);
  const slug = `flames-${unique}`;
  await apiPost(page, "/api/projects", { name: `nginx proxy buffers ${unique}`, slug });
  const defaultRun = await importRun(page, slug, "default");
  const bigBuffersRun = await importRun(page, slug, "buffers-4x128k");

  // 1. Drag and drop the gzipped perf script output onto the default run.
  await page.goto(`/p/${slug}/runs/${defaultRun}/profiles`);
  await expect(page.getByRole("heading", { name: "Flame graphs", exact: true })).toBeVisible();
  await page.getByLabel("Host role").fill("proxy");
  await dropFile(
    page,
    "profile-dropzone",
    join(CAPTURE, "default", "perf-script.txt.gz"),
    "perf-script.txt.gz",
  );
  const uploaded = page.getByRole("status").filter({ hasText: "uploaded" });
  await expect(uploaded).toContainText("perf-script");
  await expect(page.getByRole("link", { name: "perf-script" })).toBeVisible(); // in the run's list

  // 2. The folded stacks of buffers-4x128k through the file picker.
  await page.goto(`/p/${slug}/runs/${bigBuffersRun}/profiles`);
  // stackcollapse-perf.pl summed cpu-clock periods: say so, or the diff refuses to mix units.
  await page.getByLabel("Counts are").selectOption("nanoseconds");
  await page.getByLabel("Profile file").setInputFiles(join(CAPTURE, "buffers-4x128k", "stacks.folded"));
  await expect(page.getByRole("status").filter({ hasText: "uploaded" })).toContainText("folded");

  // 3. A bad file gets the server's own explanation.
  await page.getByLabel("Profile file").setInputFiles({
    name: "notes.txt",
    mimeType: "text/plain",
    buffer: Buffer.from("this is not a profile\n"),
  });
  await expect(page.getByRole("alert")).toContainText("The server did not accept this profile");

  // 4. The viewer: search readv, and the percentage is the model's on the same stacks.
  await page.goto(`/p/${slug}/runs/${defaultRun}/profiles`);
  await page.getByRole("link", { name: "perf-script" }).click();
  await expect(page).toHaveURL(new RegExp(`/p/${slug}/profiles/[0-9a-f-]{36}$`));
  const canvas = page.getByRole("application", { name: "Flame graph", exact: true });
  await expect(canvas).toBeVisible();
  await page.keyboard.press("/");
  await expect(page.getByLabel("Search frames (regular expression)")).toBeFocused();
  await page.keyboard.type("readv");
  const folded = readFileSync(join(CAPTURE, "default", "stacks.folded"), "utf8");
  const compiled = compileSearch("readv");
  if (!compiled.ok || !compiled.regex) throw new Error("pattern");
  const expected = searchTree(treeFromFolded(folded), compiled.regex).fraction * 100;
  const matched = page.getByTestId("search-matched");
  const shown = async () => Number(/([\d.]+)%/.exec((await matched.textContent()) ?? "")?.[1]);
  await expect.poll(async () => Math.abs((await shown()) - expected)).toBeLessThanOrEqual(0.1);
  await expect(page).toHaveURL(/q=readv/);
  if (SHOTS) {
    // The README's screenshots: PERFLAB_E2E_SCREENSHOTS=../docs/screenshots npm run test:e2e -- profiles
    await page.setViewportSize({ width: 1440, height: 1000 });
    await page.getByLabel("Search frames (regular expression)").blur();
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(SHOTS, "flamegraph.png"), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 720 });
  }
  // An invalid regex is an error message, not a crash.
  await page.getByLabel("Search frames (regular expression)").fill("readv(");
  await expect(page.getByRole("alert")).toContainText("Invalid regular expression");
  await page.getByLabel("Search frames (regular expression)").fill("readv");

  // 5. Hover a frame: its cost as text; click it: zoomed, with a breadcrumb; Esc resets.
  const readvFrame = await framePoint(page, "Flame graph", folded, ["nginx", "__GI___readv"]);
  await page.mouse.move(readvFrame.x, readvFrame.y);
  const tip = page.getByRole("tooltip");
  await expect(tip).toContainText("__GI___readv");
  await expect(tip).toContainText("of parent");
  await page.mouse.click(readvFrame.x, readvFrame.y);
  await expect(page).toHaveURL(/zoom=nginx%3B__GI___readv/);
  const crumbs = page.getByRole("navigation", { name: "Zoom path" });
  await expect(crumbs.getByRole("button", { name: "nginx" })).toBeVisible();
  await expect(crumbs.locator("[aria-current=location]")).toHaveText("__GI___readv");
  // The view survives a reload (everything is in the URL).
  await page.reload();
  await expect(
    page.getByRole("navigation", { name: "Zoom path" }).locator("[aria-current=location]"),
  ).toHaveText("__GI___readv");
  await expect(page.getByLabel("Search frames (regular expression)")).toHaveValue("readv");
  await page.keyboard.press("Escape");
  await expect(page).not.toHaveURL(/zoom=/);
  await page.getByRole("button", { name: "Icicle" }).click();
  await expect(page).toHaveURL(/mode=icicle/);

  // 6. Functions and the sandwich of do_readv.
  await page.getByRole("tab", { name: "Functions" }).click();
  const table = page.getByRole("table", { name: "Functions" });
  await expect(table).toBeVisible();
  await table.getByRole("button", { name: "Sandwich of do_readv" }).click();
  await expect(page).toHaveURL(/fn=do_readv/);
  await expect(page.getByRole("heading", { name: "Sandwich: do_readv" })).toBeVisible();
  await expect(page.getByRole("application", { name: "Callers of do_readv" })).toBeVisible();
  await expect(page.getByRole("application", { name: "Callees of do_readv" })).toBeVisible();
  await table.getByRole("button", { name: /^Self/ }).click();
  await expect(page).toHaveURL(/sort=self/);

  // 7. Compare with the other profile: the differential view says how it normalised.
  const other = await page
    .locator("#compare-with option", { hasText: "buffers-4x128k" })
    .getAttribute("value");
  await page.getByLabel("Compare with").selectOption(other ?? "");
  await page.getByRole("button", { name: "Diff", exact: true }).click();
  await expect(page).toHaveURL(/\/profiles\/diff\?base=[0-9a-f-]{36}&other=[0-9a-f-]{36}/);
  const norm = page.getByTestId("normalisation");
  await expect(norm).toContainText("scaled by");
  // default has 3,535,070,112 ns of samples, buffers-4x128k 3,795,591,152: factor 0.9314.
  await expect(norm).toContainText("×0.9314");
  await expect(page.getByRole("application", { name: "Differential flame graph" })).toBeVisible();
  await expect(page.getByRole("table", { name: "Function changes" })).toContainText("__GI___writev");
  await page.getByLabel("Search frames (regular expression)").fill("writev");
  await expect(page.getByTestId("search-matched")).toContainText("of base");
  if (SHOTS) {
    await page.getByLabel("Search frames (regular expression)").fill("");
    await page.setViewportSize({ width: 1440, height: 1000 });
    await page.getByLabel("Search frames (regular expression)").blur();
    await page.waitForTimeout(300);
    await page.screenshot({
      path: join(SHOTS, "flamegraph-diff.png"),
      clip: { x: 0, y: 0, width: 1440, height: 1240 },
      fullPage: true,
    });
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.getByLabel("Search frames (regular expression)").fill("writev");
  }

  // 8. Side by side: one search, one zoom path for both profiles.
  await page.getByRole("tab", { name: "Side by side" }).click();
  await expect(page.getByTestId("matched-base")).toContainText("matched");
  await expect(page.getByTestId("matched-other")).toContainText("matched");
  const base = await framePoint(page, "Base flame graph", folded, ["nginx", "__libc_recv"]);
  await page.mouse.click(base.x, base.y);
  await expect(page).toHaveURL(/zoom=nginx%3B__libc_recv/);
  for (const side of ["Base", "Other"]) {
    const graph = page.locator(".compare-side").filter({ has: page.getByRole("heading", { name: side }) });
    await expect(graph.locator("[aria-current=location]")).toHaveText("__libc_recv");
  }

  expect(dialogs).toEqual([]);
});

test("a frame named like markup is shown as text and runs nothing", async ({ page }) => {
  const dialogs: string[] = [];
  page.on("dialog", async (d) => {
    dialogs.push(d.message());
    await d.dismiss();
  });
  await logIn(page);
  const unique = Date.now().toString(36);
  const slug = `flames-xss-${unique}`;
  await apiPost(page, "/api/projects", { name: `flame xss ${unique}`, slug });
  const run = await importRun(page, slug, "default");
  await page.goto(`/p/${slug}/runs/${run}/profiles`);
  await page.getByLabel("Profile file").setInputFiles({
    name: "payload.folded",
    mimeType: "text/plain",
    buffer: Buffer.from(`main;${XSS} 30\nmain;';alert(1);// 10\nmain;ok 5\n`),
  });
  await page.getByRole("link", { name: "Open flame graph" }).click();
  await expect(page.getByRole("application", { name: "Flame graph", exact: true })).toBeVisible();
  await page.getByRole("tab", { name: "Functions" }).click();
  const table = page.getByRole("table", { name: "Functions" });
  await expect(table.getByRole("button", { name: `Sandwich of ${XSS}` })).toHaveText(XSS);
  await table.getByRole("button", { name: `Sandwich of ${XSS}` }).click();
  await expect(page.getByRole("heading", { name: `Sandwich: ${XSS}` })).toBeVisible();
  // Searching for it matches it literally: 30 of 45 samples.
  await page.getByLabel("Search frames (regular expression)").fill("<img");
  await expect(page.getByTestId("search-matched")).toContainText("66.7%");
  expect(await page.locator("img[src=x], [onerror]").count()).toBe(0);
  expect(dialogs).toEqual([]);
});

test("the flame graph is usable from the keyboard", async ({ page }) => {
  await logIn(page);
  const unique = Date.now().toString(36);
  const slug = `flame-keys-${unique}`;
  await apiPost(page, "/api/projects", { name: `flame keys ${unique}`, slug });
  const run = await importRun(page, slug, "default");
  const folded = readFileSync(join(CAPTURE, "default", "stacks.folded"), "utf8");
  const csrf = (await page.context().cookies()).find((c) => c.name === "perflab_csrf")?.value ?? "";
  const r = await page.request.post(`/api/runs/${run}/profiles?name=default&unit=nanoseconds`, {
    data: Buffer.from(folded),
    headers: { "Content-Type": "application/octet-stream", "X-CSRF-Token": csrf },
  });
  expect(r.status()).toBe(201);
  const { profile_id: profileId } = await r.json();

  await page.goto(`/p/${slug}/profiles/${profileId}`);
  const canvas = page.getByRole("application", { name: "Flame graph", exact: true });
  await expect(canvas).toBeVisible();
  const live = page.getByTestId("flame-focus");
  await expect(live).toHaveAttribute("aria-live", "polite");

  // The same model the page uses tells which frames the arrows must reach (culled frames are skipped).
  const tree = treeFromFolded(folded);
  const box = await canvas.boundingBox();
  if (!box) throw new Error("no canvas");
  const layout = layoutTree(tree, { widthPx: Math.floor(box.width), minWidthPx: 0.5 });
  const shown = (node: number) => [...children(tree, node)].filter((c) => (layout.slotOf[c] as number) >= 0);
  const nginx = findPath(tree, ["nginx"]).node;
  const first = shown(nginx)[0] as number;
  const second = shown(nginx)[1] as number;

  // Tab reaches the canvas; its focus ring is visible and the frame is announced.
  await page.getByLabel("Search frames (regular expression)").focus();
  for (let i = 0; i < 12 && !(await canvas.evaluate((el) => el === document.activeElement)); i++) {
    await page.keyboard.press("Tab");
  }
  await expect(canvas).toBeFocused();
  expect(await canvas.evaluate((el) => getComputedStyle(el).outlineStyle)).toBe("solid");
  await expect(live).toHaveText(/^all: /);
  // A flame graph grows upwards: up goes to the callee, down back to the caller.
  await page.keyboard.press("ArrowUp");
  await expect(live).toHaveText(/^nginx: .* of all/);
  await page.keyboard.press("ArrowUp");
  await expect(live).toContainText(`${nameOf(tree, first)}: `);
  await expect(live).toHaveText(/, depth 2$/);
  await page.keyboard.press("ArrowRight");
  const secondName = nameOf(tree, second);
  await expect(live).toContainText(`${secondName}: `);
  await page.keyboard.press("ArrowLeft");
  await expect(live).toContainText(`${nameOf(tree, first)}: `);
  await page.keyboard.press("ArrowRight");
  // Enter zooms into the focused frame (the zoom is in the URL, like a click).
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`zoom=nginx%3B${encodeURIComponent(secondName)}`));
  await expect(
    page.getByRole("navigation", { name: "Zoom path" }).locator("[aria-current=location]"),
  ).toHaveText(secondName);
  await expect(canvas).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(live).toHaveText(/^nginx: /);
  // Escape resets the zoom and brings the focus back to the root.
  await page.keyboard.press("Escape");
  await expect(page).not.toHaveURL(/zoom=/);
  await expect(live).toHaveText(/^all: /);
});
