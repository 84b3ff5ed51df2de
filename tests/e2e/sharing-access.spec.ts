// Public links outlive their creator's membership unless someone revokes them (issue 21): removing a
// member asks whether to revoke the links they created, and owners revoke any link from the list.
// Runs against a real server and database with a real wrk capture imported.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { type APIResponse, expect, type Page, test } from "@playwright/test";
import { adminEmail, adminPassword, csrfHeaders, logIn } from "./session";

const WRK = readFileSync(
  resolve(__dirname, "..", "fixtures", "captures", "nginx-proxy-buffers", "default", "run1", "wrk.txt"),
  "utf8",
);
const PASSWORD = "a long enough password 1";

async function ok(res: Promise<APIResponse>, what: string) {
  const r = await res;
  if (!r.ok()) throw new Error(`${what}: HTTP ${r.status()} ${await r.text()}`);
  return r.json();
}

async function shareAs(page: Page, slug: string): Promise<string> {
  const headers = await csrfHeaders(page.context());
  const saved = await ok(
    page.request.post(`/api/projects/${slug}/comparisons`, {
      data: { baseline: "baseline", experiments: ["baseline"], title: "before the change" },
      headers,
    }),
    "save",
  );
  const link = await ok(
    page.request.post(`/api/comparisons/${saved.short_id}/share-links`, { data: {}, headers }),
    "share",
  );
  return link.token;
}

test("removing a member can revoke the public links they created", async ({ page, browser }) => {
  const u = Date.now().toString(36);
  await logIn(page, adminEmail(), adminPassword());
  const headers = await csrfHeaders(page.context());
  const { slug } = await ok(
    page.request.post("/api/projects", { data: { name: `links ${u}` }, headers }),
    "p",
  );
  await ok(
    page.request.post(`/api/projects/${slug}/imports`, {
      data: { experiment: "baseline", label: "r", files: [{ name: "wrk.txt", content: WRK }] },
      headers,
    }),
    "import",
  );
  const email = `leaving-${u}@example.test`;
  await ok(page.request.post("/api/users", { data: { email, password: PASSWORD }, headers }), "user");
  await ok(
    page.request.post(`/api/projects/${slug}/members`, { data: { email, role: "member" }, headers }),
    "member",
  );
  const context = await browser.newContext();
  const leaving = await context.newPage();
  await logIn(leaving, email, PASSWORD);
  const token = await shareAs(leaving, slug);
  expect((await page.request.get(`/api/share/${token}`)).status()).toBe(200);

  await page.goto(`/p/${slug}/members`);
  await page.getByRole("button", { name: `Remove ${email}` }).click();
  const confirm = page.getByRole("alertdialog", { name: `Remove ${email}?` });
  const revoke = confirm.getByRole("checkbox", {
    name: /Also revoke the public share links they created \(1 active\)/,
  });
  await expect(revoke).toBeChecked();
  await confirm.getByRole("button", { name: "Remove" }).click();
  await expect(page.getByRole("table", { name: "Members" })).not.toContainText(email);
  expect((await page.request.get(`/api/share/${token}`)).status()).toBe(410);
  await context.close();
});
