// Logging in through the form as a user does, and calling the API as the logged-in UI does (session
// cookie plus the CSRF header): the steps every spec starts with.
import { type BrowserContext, expect, type Locator, type Page } from "@playwright/test";

export const adminEmail = () => process.env.PERFLAB_E2E_ADMIN_EMAIL ?? "";
export const adminPassword = () => process.env.PERFLAB_E2E_ADMIN_PASSWORD ?? "";

export async function logIn(page: Page, email = adminEmail(), password = adminPassword()) {
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page).toHaveURL(/\/projects$/);
}

/** The header the UI echoes from its readable CSRF cookie on every state-changing request. */
export async function csrfHeaders(context: BrowserContext): Promise<Record<string, string>> {
  const csrf = (await context.cookies()).find((c) => c.name === "perflab_csrf")?.value ?? "";
  return { "X-CSRF-Token": csrf };
}

/** Console errors, uncaught exceptions and React Router's hydration warnings of a page. */
export function watchConsole(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" || (m.type() === "warning" && /HydrateFallback/.test(m.text())))
      errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));
  return errors;
}

/** Drag the pointer across a chart from one share of its width to another, as a user selects a range. */
export async function drag(plot: Locator, fromPct: number, toPct: number, page: Page) {
  await plot.scrollIntoViewIfNeeded();
  const box = await plot.boundingBox();
  if (!box) throw new Error("chart not laid out");
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width * fromPct, y);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * ((fromPct + toPct) / 2), y, { steps: 4 });
  await page.mouse.move(box.x + box.width * toPct, y, { steps: 4 });
  await page.mouse.up();
}
