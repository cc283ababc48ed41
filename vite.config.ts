import { svelte } from "@sveltejs/vite-plugin-svelte";
import type { Connect, Plugin } from "vite";
import { defineConfig } from "vite";
import { VitePWA } from "vite-plugin-pwa";
import { REPL_WORKER_CSP, isReplWorkerScript } from "./src/security/csp.ts";
import { sandboxedReplWorker } from "./scripts/vite-sandboxed-repl-worker.ts";

// Cross-origin isolation: SharedArrayBuffer for Python's interrupt buffer and the blocking
// sub-call channel. Production hosts must send the same headers (see README).
const isolation = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
};

// The Python REPL worker runs model-written code: its script gets the sandbox policy of
// src/security/csp.ts (also applied by the service worker for hosts that cannot set headers).
function replWorkerCsp(): Plugin {
  const middleware: Connect.NextHandleFunction = (req, res, next) => {
    if (req.url && isReplWorkerScript(req.url)) res.setHeader("Content-Security-Policy", REPL_WORKER_CSP);
    next();
  };
  return {
    name: "repl-worker-csp",
    configureServer: (server) => void server.middlewares.use(middleware),
    configurePreviewServer: (server) => void server.middlewares.use(middleware),
  };
}

// The service worker (src/sw.ts) precaches the app, the Python runtime and every worker
// (the model worker alone is 6 MB, hence the size limit), and adds the headers above for hosts
// that cannot set them. It is not used by `vite dev`.
const pwa = VitePWA({
  strategies: "injectManifest",
  srcDir: "src",
  filename: "sw.ts",
  registerType: "prompt",
  injectRegister: false,
  injectManifest: {
    globPatterns: ["**/*.{js,mjs,css,html,wasm,zip,json,svg,webmanifest,md}"],
    // The page runs llama.cpp from our own SIMD build (wllama/simd/, 16 MB, docs/llama-wasm-build.md)
    // wherever a worker has shared memory, so that is precached, with its relaxed-SIMD wasm
    // (wllama/simd/relaxed/, 16 MB more), which the worker picks where relaxed SIMD validates: both,
    // so that a browser offline still finds the one it picks. wllama's compat build (19 MB) runs
    // only where workers have none (WebKitGTK): the service worker keeps it the first time such a
    // browser asks (src/sw.ts), not every visitor. Its default build is for bench/wllama.ts only.
    // The size limit admits the SIMD wasm (and the 6 MB model worker).
    globIgnores: ["**/*.map", "**/wllama/wllama.wasm", "**/wllama/compat/**"],
    maximumFileSizeToCacheInBytes: 20 * 1024 * 1024,
  },
  manifest: {
    name: "Recursive Reader",
    short_name: "Reader",
    description: "Ask questions about very long documents with a Recursive Language Model that runs in your browser.",
    theme_color: "#2f5fd0",
    background_color: "#f7f7f4",
    display: "standalone",
    icons: [{ src: "icon.svg", sizes: "any", type: "image/svg+xml", purpose: "any" }],
  },
  devOptions: { enabled: false },
});

export default defineConfig({
  plugins: [svelte(), replWorkerCsp(), sandboxedReplWorker(), pwa],
  // Not node_modules/.vite: a new entry in node_modules makes every `npx rlm` re-read all packages
  // (see src/node/esbuild-cache.mjs).
  cacheDir: ".cache/vite",
  server: { headers: isolation },
  preview: { headers: isolation },
  worker: { format: "es" },
  // Pre-bundle what workers import late, so the dev server does not reload the page on first use.
  optimizeDeps: {
    exclude: ["pyodide", "@mlc-ai/web-llm"],
    include: ["comlink", "mammoth", "pdfjs-dist", "pdfjs-dist/build/pdf.worker.mjs"],
  },
  build: { target: "es2022", sourcemap: true, chunkSizeWarningLimit: 8000 },
});
