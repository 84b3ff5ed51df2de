#!/usr/bin/env node
// Renderer benchmark: builds the bench page, serves it on 127.0.0.1 (no other network), opens it in
// Debian's headless Chromium through playwright-core, and times first paint, hover and zoom of a
// 50,000-frame profile for our canvas renderer and for d3-flame-graph 5. Writes
// bench/results/flamegraph.json. Run: `node bench/flamegraph/run.mjs` (after `make install`).
import { createReadStream, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, extname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { benchConfig } from "./vite.config.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..", "..");
const frontend = join(repo, "frontend");
const require = createRequire(join(frontend, "package.json"));
const load = async (name) => import(pathToFileURL(require.resolve(name)).href);

const HOVERS = Number(process.env.BENCH_HOVERS ?? 60);
const ZOOMS = Number(process.env.BENCH_ZOOMS ?? 25);
const MOUNTS_OURS = 5;
const MOUNTS_D3 = 2;
// d3-flame-graph takes seconds per zoom at this size: fewer samples keep the run within minutes.
const D3_HOVERS = Number(process.env.BENCH_D3_HOVERS ?? 20);
const D3_ZOOMS = Number(process.env.BENCH_D3_ZOOMS ?? 4);
const t0 = Date.now();
const log = (msg) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}`);
const TARGETS = {
  firstPaintMs: 100,
  redrawMedianMs: 16,
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return null;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : null;
};
const round = (v) => (v === null || v === undefined ? null : Math.round(v * 100) / 100);
const summary = (xs) => ({ n: xs.length, median: round(median(xs)), p90: round(pct(xs, 90)), max: round(Math.max(...xs)) });

const MIME = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".json": "application/json" };

function serve(dir) {
  return new Promise((res) => {
    const server = createServer((req, reply) => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const path = resolve(dir, `.${decodeURIComponent(url.pathname === "/" ? "/index.html" : url.pathname)}`);
      if (!path.startsWith(dir) || !existsSync(path) || !statSync(path).isFile()) {
        reply.writeHead(404).end();
        return;
      }
      reply.writeHead(200, { "Content-Type": MIME[extname(path)] ?? "application/octet-stream" });
      createReadStream(path).pipe(reply);
    });
    server.listen(0, "127.0.0.1", () => res(server));
  });
}

async function main() {
  const { build } = await load("vite");
  const react = (await load("@vitejs/plugin-react")).default;
  const pw = await load("playwright-core");
  const chromium = pw.chromium ?? pw.default.chromium;

  const out = mkdtempSync(join(tmpdir(), "perflab-flame-bench-"));
  await build(benchConfig(out, react));
  const server = await serve(out);
  const { port } = server.address();
  const browser = await chromium.launch({
    executablePath: process.env.PERFLAB_CHROMIUM ?? "/usr/bin/chromium",
    args: [
      "--headless=new",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 }, deviceScaleFactor: 1 });
    // Loopback only: anything else the page asks for is refused.
    await page.route("**/*", (route) =>
      new URL(route.request().url()).hostname === "127.0.0.1" ? route.continue() : route.abort(),
    );
    page.on("pageerror", (e) => console.error("page error:", e));
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForFunction(() => window.bench?.ready === true, null, { timeout: 120_000 });
    const info = await page.evaluate(() => window.bench.info);
    console.log(`profile: ${info.frames} frames, depth ${info.maxDepth}, ${info.width}px wide`);

    const measure = async (targets, action) => {
      const out = [];
      for (const t of targets) {
        await action(t);
        // An event that changed nothing on screen never resolves: give up on it after 20 s.
        const timing = await page.evaluate(() =>
          Promise.race([window.bench.nextTiming(), new Promise((r) => setTimeout(() => r(null), 20_000))]),
        );
        if (timing) out.push(timing);
      }
      return out;
    };

    // ----- ours -----
    const oursMounts = [];
    for (let i = 0; i < MOUNTS_OURS; i++) oursMounts.push(await page.evaluate(() => window.bench.mountOurs()));
    log(`ours mounted: ${JSON.stringify(oursMounts.map((m) => Math.round(m.firstPaintMs)))} ms`);
    const oursHoverTargets = await page.evaluate((n) => window.bench.oursTargets(n, 2), HOVERS);
    const oursHover = await measure(oursHoverTargets, (t) => page.mouse.move(t.x, t.y));
    await page.mouse.move(0, 0);
    const oursZoom = [];
    const zoomTargets = await page.evaluate((n) => window.bench.oursTargets(n, 6), ZOOMS);
    for (const t of zoomTargets) {
      oursZoom.push(...(await measure([t], (p) => page.mouse.click(p.x, p.y))));
      await page.mouse.move(0, 0);
      await page.evaluate(() => window.bench.resetOurs());
    }
    log("ours hover and zoom done");
    await page.screenshot({ path: join(out, "ours.png") });
    await page.evaluate(() => window.bench.unmountAll());

    // ----- d3-flame-graph 5 -----
    const d3Mounts = [];
    for (let i = 0; i < MOUNTS_D3; i++) d3Mounts.push(await page.evaluate(() => window.bench.mountD3()));
    log(`d3 mounted: ${JSON.stringify(d3Mounts.map((m) => Math.round(m.presentedMs)))} ms`);
    const d3HoverTargets = await page.evaluate((n) => window.bench.d3Targets(n, 2), D3_HOVERS);
    const d3Hover = await measure(d3HoverTargets, (t) => page.mouse.move(t.x, t.y));
    await page.mouse.move(0, 0);
    const d3Zoom = [];
    log("d3 hover done");
    const d3ZoomTargets = await page.evaluate((n) => window.bench.d3Targets(n, 6), D3_ZOOMS);
    for (const t of d3ZoomTargets) {
      d3Zoom.push(...(await measure([t], (p) => page.mouse.click(p.x, p.y))));
      await page.mouse.move(0, 0);
      await page.evaluate(() => window.bench.resetD3());
    }

    const firstOurs = oursMounts.map((m) => m.firstPaintMs);
    const firstD3 = d3Mounts.map((m) => m.presentedMs);
    const ours = {
      first_paint_ms: { cold: round(firstOurs[0]), ...summary(firstOurs) },
      first_frame_presented_ms: summary(oursMounts.map((m) => m.presentedMs)),
      build_model_ms: summary(oursMounts.map((m) => m.buildMs)),
      canvas_paint_ms: summary(oursMounts.map((m) => m.paintMs)),
      frames_drawn: oursMounts[0]?.framesDrawn,
      hover_redraw_ms: summary(oursHover.map((t) => t.redraw)),
      zoom_redraw_ms: summary(oursZoom.map((t) => t.redraw)),
    };
    const d3 = {
      first_paint_ms: { cold: round(firstD3[0]), ...summary(firstD3) },
      dom_build_ms: summary(d3Mounts.map((m) => m.buildMs)),
      svg_elements: d3Mounts[0]?.elements,
      hover_redraw_ms: summary(d3Hover.map((t) => t.redraw)),
      zoom_redraw_ms: summary(d3Zoom.map((t) => t.redraw)),
    };
    const ratio = (a, b) => (a && b ? Math.round((a / b) * 10) / 10 : null);
    const result = {
      benchmark: "flame graph renderer: 50,000 distinct frames, 1280 px wide, headless Chromium",
      generated_at: new Date().toISOString(),
      chromium: browser.version(),
      profile: info,
      method:
        "first paint: ours = server JSON -> model -> React mount -> canvas painted (median of 5); d3 = chart call -> SVG built -> next frame (median of 3). " +
        "hover/zoom redraw: pointer event (Playwright mouse, through Chromium's input pipeline) -> new picture ready: " +
        "ours = handlers + React render + layout + canvas painted (hover paints wait for the next animation frame, which coalesces pointer moves; zoom paints at once); " +
        "d3 = its handlers, then its zero-length transitions applied in the next animation frame, then SVG style and layout. " +
        "d3-flame-graph 5 with transitionDuration(0) (its 750 ms animation excluded) and its default minFrameSize (0: every frame is an SVG element).",
      targets: TARGETS,
      ours,
      d3_flame_graph_5: d3,
      ratios_d3_over_ours: {
        first_paint: ratio(d3.first_paint_ms.median, ours.first_paint_ms.median),
        hover_redraw: ratio(d3.hover_redraw_ms.median, ours.hover_redraw_ms.median),
        zoom_redraw: ratio(d3.zoom_redraw_ms.median, ours.zoom_redraw_ms.median),
      },
      pass: {
        first_paint: (ours.first_paint_ms.median ?? Infinity) <= TARGETS.firstPaintMs,
        hover_redraw: (ours.hover_redraw_ms.median ?? Infinity) <= TARGETS.redrawMedianMs,
        zoom_redraw: (ours.zoom_redraw_ms.median ?? Infinity) <= TARGETS.redrawMedianMs,
      },
    };
    const resultsDir = join(repo, "bench", "results");
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(join(resultsDir, "flamegraph.json"), `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify({ ours, d3_flame_graph_5: d3, ratios: result.ratios_d3_over_ours, pass: result.pass }, null, 2));
    if (process.env.BENCH_KEEP) console.log(`kept ${out}`);
    return result;
  } finally {
    await browser.close();
    server.close();
    if (!process.env.BENCH_KEEP) rmSync(out, { recursive: true, force: true });
  }
}

main().then(
  (r) => process.exit(Object.values(r.pass).every(Boolean) ? 0 : 1),
  (e) => {
    console.error(e);
    process.exit(2);
  },
);
