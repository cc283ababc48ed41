// Vite config for the WebLLM generation test page (tests/e2e/webllm-generation.test.ts): a test
// build of the product's model worker, client, engine, RLM loop and Python REPL in which
// `@mlc-ai/web-llm` is web-llm 0.2.79 (the dev dependency `web-llm-0279`). The shipped app uses
// 0.2.86, whose compiled model libraries cannot be had here; 0.2.79 runs the v0_2_48 libraries of
// tests/fixtures/webllm (see its README). Everything else is the product's code, unchanged.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const here = fileURLToPath(new URL(".", import.meta.url));
const projectRoot = fileURLToPath(new URL("../../../../", import.meta.url));
const webllm0279 = createRequire(import.meta.url).resolve("web-llm-0279");
const isolation = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
};

export default defineConfig({
  root: here,
  // Pyodide's files, copied there by scripts/copy-pyodide.mjs (the REPL loads them from the page's origin).
  publicDir: `${projectRoot}public`,
  cacheDir: `${projectRoot}node_modules/.vite-webllm-run-page`,
  logLevel: "warn",
  clearScreen: false,
  resolve: { alias: { "@mlc-ai/web-llm": webllm0279 } },
  server: { headers: isolation, host: "127.0.0.1", fs: { allow: [projectRoot] } },
  preview: { headers: isolation, host: "127.0.0.1" },
  worker: { format: "es" },
  optimizeDeps: { exclude: ["@mlc-ai/web-llm", "pyodide"], include: ["comlink"] },
  build: { emptyOutDir: true, chunkSizeWarningLimit: 8000, reportCompressedSize: false, target: "es2022" },
});
