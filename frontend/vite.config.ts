// Vite serves the SPA in development (proxying the API to a running `perflab serve`) and builds
// frontend/dist, which `perflab serve` ships. Vitest reads its settings from here too.
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

const backend = process.env.PERFLAB_DEV_BACKEND ?? "http://127.0.0.1:8000";

export default defineConfig({
  plugins: [react()],
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
