// Playwright end-to-end tests against a real `perflab serve` (real PostgreSQL, built UI) in Debian's
// Chromium. Run from frontend/: `npm run test:e2e`. No browser is downloaded: we launch /usr/bin/chromium
// (apt-get install chromium) or PERFLAB_CHROMIUM.
import { defineConfig } from "@playwright/test";

export default defineConfig({
  testDir: ".",
  testMatch: "**/*.spec.ts",
  globalSetup: "./global-setup.ts",
  outputDir: "../../test-results/e2e",
  // One server and one database for the run; tests create uniquely named projects, so they could run in
  // parallel, but a 2-core CI machine is faster with one browser at a time.
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"]],
  use: {
    // Set by global-setup once the server is listening (workers inherit the environment).
    baseURL: process.env.PERFLAB_E2E_BASE_URL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    browserName: "chromium",
    launchOptions: {
      executablePath: process.env.PERFLAB_CHROMIUM ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
});
