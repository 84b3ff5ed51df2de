// The compare page in headless Chromium: time from navigation to the result table painted with its
// verdicts, and to the main thread being free again (no long task for 300 ms), cold (a fresh browser
// context: empty HTTP cache) and warm (the same context again: code cached, queries not). Driven by
// bench/compare_page_bench.py, which starts the server and loads the capture; prints one JSON object.
//   PERFLAB_BENCH_BASE  server URL          PERFLAB_BENCH_PATH  the compare page's path and query
//   PERFLAB_BENCH_EMAIL / _PASSWORD         PERFLAB_BENCH_LOADS loads per variant (default 7)
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(resolve(here, "..", "frontend"), "package.json"));
const pw = await import(pathToFileURL(require.resolve("playwright-core")).href);
const chromium = pw.chromium ?? pw.default.chromium;

const base = process.env.PERFLAB_BENCH_BASE;
const path = process.env.PERFLAB_BENCH_PATH;
const loads = Number(process.env.PERFLAB_BENCH_LOADS ?? 7);
if (!base || !path) throw new Error("PERFLAB_BENCH_BASE and PERFLAB_BENCH_PATH are required");

const READY = '[data-testid="result-table"] [data-verdict]';
const QUIET_MS = 300;

// Runs in the page before its own scripts: notes when the table first holds a verdict (after the frame
// that paints it) and the end of every long task, all on the page's clock (ms since navigation start).
const probe = `(() => {
  const w = window;
  w.__bench = { ready: null, longTaskEnds: [] };
  try {
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) w.__bench.longTaskEnds.push(e.startTime + e.duration);
    }).observe({ type: "longtask", buffered: true });
  } catch {}
  const check = () => {
    if (w.__bench.ready !== null || !document.querySelector(${JSON.stringify(READY)})) return false;
    w.__bench.ready = -1;
    requestAnimationFrame(() => setTimeout(() => { w.__bench.ready = performance.now(); }, 0));
    return true;
  };
  const mo = new MutationObserver(() => { if (check()) mo.disconnect(); });
  document.addEventListener("DOMContentLoaded", () => {
    if (!check()) mo.observe(document.body, { childList: true, subtree: true });
  });
})();`;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const r1 = (x) => Math.round(x * 10) / 10;

async function load(context) {
  const page = await context.newPage();
  await page.goto(base + path, { waitUntil: "commit" });
  await page.waitForFunction(() => window.__bench && window.__bench.ready > 0, null, { timeout: 30_000 });
  // Interactive: the table is painted and then no long task (> 50 ms) for QUIET_MS, the way
  // time-to-interactive is defined; it is the end of the last long task before that quiet window.
  await page.waitForFunction(
    (quiet) => {
      const b = window.__bench;
      return performance.now() - Math.max(b.ready, ...b.longTaskEnds) > quiet;
    },
    QUIET_MS,
    { timeout: 30_000, polling: 50 },
  );
  const m = await page.evaluate(() => {
    const b = window.__bench;
    const nav = performance.getEntriesByType("navigation")[0];
    const resources = performance.getEntriesByType("resource").map((r) => ({
      url: r.name.replace(location.origin, ""),
      start: r.startTime,
      end: r.responseEnd,
      bytes: r.transferSize,
    }));
    return {
      ready: b.ready,
      longTaskEnds: b.longTaskEnds,
      waterfall: [{ url: "(document)", start: 0, end: nav.responseEnd, bytes: nav.transferSize }, ...resources],
    };
  });
  await page.close();
  const blocking = m.longTaskEnds.filter((e) => e > m.ready - 1e-6);
  const interactive = Math.max(m.ready, ...blocking);
  return {
    table_ms: m.ready,
    interactive_ms: interactive,
    waterfall: m.waterfall.map((r) => ({ ...r, start: r1(r.start), end: r1(r.end) })),
  };
}

const browser = await chromium.launch({
  executablePath: process.env.PERFLAB_CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox"],
});
try {
  const login = await browser.newContext({ baseURL: base });
  const r = await login.request.post("/api/auth/login", {
    data: { email: process.env.PERFLAB_BENCH_EMAIL, password: process.env.PERFLAB_BENCH_PASSWORD },
  });
  if (!r.ok()) throw new Error(`login: HTTP ${r.status()} ${await r.text()}`);
  const storageState = await login.storageState();
  await login.close();

  const fresh = async () => {
    const c = await browser.newContext({ baseURL: base, storageState, viewport: { width: 1440, height: 900 } });
    await c.addInitScript(probe);
    return c;
  };
  // One throwaway load so the server's first-request costs (imports, pool) are not in the figures.
  {
    const c = await fresh();
    await load(c);
    await c.close();
  }
  const cold = [];
  const warm = [];
  for (let i = 0; i < loads; i++) {
    const c = await fresh();
    cold.push(await load(c));
    warm.push(await load(c));
    await c.close();
  }
  const summary = (xs) => ({
    table_ms: r1(median(xs.map((x) => x.table_ms))),
    interactive_ms: r1(median(xs.map((x) => x.interactive_ms))),
    interactive_all_ms: xs.map((x) => r1(x.interactive_ms)),
  });
  const pick = (xs) => [...xs].sort((a, b) => a.interactive_ms - b.interactive_ms)[xs.length >> 1];
  process.stdout.write(
    `${JSON.stringify({
      chromium: browser.version(),
      loads,
      cold: summary(cold),
      warm: summary(warm),
      waterfall_cold: pick(cold).waterfall,
      waterfall_warm: pick(warm).waterfall,
    })}\n`,
  );
} finally {
  await browser.close();
}
