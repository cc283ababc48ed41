// Vite config for the WebLLM test page (tests/e2e/webllm*.test.ts). Same settings the app needs:
// module workers, web-llm left out of dependency pre-bundling, and cross-origin isolation.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const here = fileURLToPath(new URL(".", import.meta.url));
const projectRoot = fileURLToPath(new URL("../../../../", import.meta.url));
const isolation = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
};

export default defineConfig({
  root: here,
  // Its own dependency cache, so it never churns the app's node_modules/.vite.
  cacheDir: `${projectRoot}node_modules/.vite-webllm-test-page`,
  logLevel: "warn",
  clearScreen: false,
  server: { headers: isolation, host: "127.0.0.1", fs: { allow: [projectRoot] } },
  preview: { headers: isolation, host: "127.0.0.1" },
  worker: { format: "es" },
  // web-llm is one pre-bundled 6 MB ESM file: pre-bundling it again only costs time. Comlink is
  // listed so the dev server does not discover it late (inside the worker) and reload the page.
  optimizeDeps: { exclude: ["@mlc-ai/web-llm"], include: ["comlink"] },
  build: { emptyOutDir: true, chunkSizeWarningLimit: 8000, reportCompressedSize: false },
});
