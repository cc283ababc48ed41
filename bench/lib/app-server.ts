// The real app, built as `npm run build` builds it (the project's vite.config.ts: PWA service
// worker, REPL worker CSP, cross-origin isolation headers) and served by `vite preview`.
// It builds into bench/out/app-dist, not dist/, so a test run rebuilding dist/ at the same time
// cannot swap files under the benchmark; --dist=<dir> serves an existing build instead.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build, preview } from "vite";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const OWN_DIST = fileURLToPath(new URL("../out/app-dist/", import.meta.url));

export async function startBuiltApp(existingDist?: string): Promise<{ url: string; distDir: string; close: () => Promise<void> }> {
  const outDir = existingDist ?? OWN_DIST;
  if (!existingDist) {
    if (!existsSync(`${ROOT}public/pyodide/pyodide.asm.wasm`))
      throw new Error("public/pyodide is missing: run `node scripts/copy-pyodide.mjs` (or npm run build) first");
    await build({ root: ROOT, logLevel: "error", build: { outDir, emptyOutDir: true } });
  } else if (!existsSync(`${outDir}/index.html`)) {
    throw new Error(`${outDir} has no index.html: build the app first (npm run build)`);
  }
  const server = await preview({
    root: ROOT,
    logLevel: "error",
    build: { outDir },
    preview: { port: 0, host: "127.0.0.1", strictPort: false },
  });
  const url = server.resolvedUrls?.local[0];
  if (!url) throw new Error("the app preview server has no local URL");
  return { url, distDir: outDir, close: () => server.close() };
}
