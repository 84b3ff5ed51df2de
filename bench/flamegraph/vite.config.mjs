// Builds the benchmark page: bench/flamegraph/page/ plus the app's own flame graph code (frontend/src via
// "@/"), React, d3 and d3-flame-graph, all resolved from frontend/node_modules. The output is a static
// folder that run.mjs serves on 127.0.0.1.
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const frontend = resolve(here, "..", "..", "frontend");

/** @param {string} outDir @param {any} react the @vitejs/plugin-react default export */
export function benchConfig(outDir, react) {
  return {
    configFile: false,
    root: join(here, "page"),
    base: "./",
    logLevel: "warn",
    plugins: [
      react(),
      {
        // Bare imports from the bench page resolve as if made from frontend/src.
        name: "resolve-from-frontend",
        enforce: "pre",
        /** @param {string} source @param {string | undefined} importer @param {any} options */
        async resolveId(source, importer, options) {
          if (!importer || !importer.startsWith(here) || /^[./]|^@\/|^\0/.test(source)) return null;
          // d3-flame-graph's stylesheet is not in its package exports: take the file itself.
          if (source === "d3-flame-graph/dist/d3-flamegraph.css")
            return join(frontend, "node_modules", "d3-flame-graph", "dist", "d3-flamegraph.css");
          return this.resolve(source, join(frontend, "src", "main.tsx"), { ...options, skipSelf: true });
        },
      },
    ],
    resolve: { alias: { "@": join(frontend, "src") } },
    build: { outDir, emptyOutDir: true, sourcemap: false, minify: true, reportCompressedSize: false },
  };
}
