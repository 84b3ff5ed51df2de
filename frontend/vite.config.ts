// Vite serves the SPA in development (proxying the API to a running `perflab serve`) and builds
// frontend/dist, which `perflab serve` ships. Vitest reads its settings from here too.
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import type { Plugin } from "vite";
import { defineConfig } from "vitest/config";

const backend = process.env.PERFLAB_DEV_BACKEND ?? "http://127.0.0.1:8000";

/**
 * Names the compare page's built chunks in index.html (a JSON data block, which the CSP does not
 * execute), so public/early-fetch.js can preload them on a compare URL while the main bundle is
 * still being evaluated, instead of the router asking for them afterwards.
 */
function routeChunks(): Plugin {
  return {
    name: "perflab-route-chunks",
    apply: "build",
    transformIndexHtml: {
      order: "post",
      handler(_html, ctx) {
        const chunks: Record<string, string[]> = {};
        for (const c of Object.values(ctx.bundle ?? {})) {
          if (
            c.type === "chunk" &&
            c.isDynamicEntry &&
            c.facadeModuleId?.endsWith("/features/compare/index.ts")
          ) {
            chunks.compare = [c.fileName, ...c.imports].map((f) => `/${f}`);
          }
        }
        return [
          {
            tag: "script",
            attrs: { type: "application/json", id: "perflab-chunks" },
            children: JSON.stringify(chunks),
            injectTo: "head-prepend",
          },
        ];
      },
    },
  };
}

export default defineConfig({
  plugins: [react(), routeChunks()],
  resolve: {
    alias: { "@": fileURLToPath(new URL("./src", import.meta.url)) },
  },
  server: {
    port: 5173,
    strictPort: false,
    proxy: {
      // Same-origin from the browser's point of view, so session and CSRF cookies just work.
      "/api": { target: backend, changeOrigin: false },
      "/agent": { target: backend, changeOrigin: false },
    },
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 900,
  },
  test: {
    include: ["src/**/*.test.ts"],
    environment: "node",
  },
});
