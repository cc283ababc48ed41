// Vite config for the benchmark pages (bench/browser-bench.ts, bench/startup.ts): the REPL
// bench page and the boot page. Same settings the app needs: module workers, Pyodide left out
// of dependency pre-bundling, cross-origin isolation (SharedArrayBuffer, precise memory
// measurement), and the project's public/ folder so /pyodide/ is served from this origin.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";
import { sandboxedReplWorker } from "../../scripts/vite-sandboxed-repl-worker.ts";

const here = fileURLToPath(new URL(".", import.meta.url));
const projectRoot = fileURLToPath(new URL("../../", import.meta.url));
const isolation = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
};

export default defineConfig({
  root: here,
  // The REPL pages run Python in the sandboxed frame where the app does (Chromium): same worker script.
  plugins: [sandboxedReplWorker()],
  publicDir: `${projectRoot}public`,
  cacheDir: `${projectRoot}node_modules/.vite-bench-pages`,
  logLevel: "warn",
  clearScreen: false,
  server: { headers: isolation, host: "127.0.0.1", fs: { allow: [projectRoot] } },
  preview: { headers: isolation, host: "127.0.0.1" },
  worker: { format: "es" },
  optimizeDeps: { exclude: ["pyodide"], include: ["comlink"] },
  build: {
    outDir: `${projectRoot}bench/out/browser-dist`,
    emptyOutDir: true,
    target: "es2022",
    chunkSizeWarningLimit: 8000,
    reportCompressedSize: false,
    rollupOptions: { input: { index: `${here}index.html`, boot: `${here}boot.html`, wllama: `${here}wllama.html` } },
  },
});
