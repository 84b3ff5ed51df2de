// Logging in through the form as a user does, and calling the API as the logged-in UI does (session
// cookie plus the CSRF header): the steps every spec starts with.
import { type BrowserContext, expect, type Page } from "@playwright/test";

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
