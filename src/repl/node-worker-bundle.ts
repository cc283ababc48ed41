// The Node REPL worker as one plain-JavaScript module, so a worker thread starts without tsx.
// Node 20 cannot run TypeScript, and tsx in a worker thread costs about 0.7 s of CPU per start
// (its loader thread plus a round trip to it for every import) — a quarter of a whole `rlm` run
// (measured with --cpu-prof). The bundle is built with esbuild (tsx's own compiler) into
// node_modules/.cache on first use and rebuilt when any of its inputs changes; if anything about
// it fails, the worker starts through tsx as before.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const root = new URL("../../", import.meta.url);
const entry = new URL("workers/repl.node-entry.ts", root);
const cacheDir = new URL("node_modules/.cache/recursive-reader/", root);
// Named after the checkout it was built from: two checkouts that share node_modules (a linked
// worktree) must not run each other's bundle.
const checkout = createHash("sha256").update(fileURLToPath(root)).digest("hex").slice(0, 12);
const bundleFile = new URL(`repl-worker-${checkout}.mjs`, cacheDir);
const manifestFile = new URL(`repl-worker-${checkout}.json`, cacheDir);

interface Manifest {
  esbuild: string;
  inputs: Array<{ path: string; size: number; mtimeMs: number }>;
}

const stamp = (path: string) => {
  const s = statSync(path);
  return { path, size: s.size, mtimeMs: s.mtimeMs };
};

function isFresh(esbuildVersion: string): boolean {
  try {
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as Manifest;
    if (manifest.esbuild !== esbuildVersion) return false;
    return manifest.inputs.every((input) => {
      const now = stamp(input.path);
      return now.size === input.size && now.mtimeMs === input.mtimeMs;
    });
  } catch {
    return false;
  }
}

let cached: URL | null | undefined;

/** The bundled worker's URL, building it if needed; null when it cannot be had (use tsx). */
export function bundledReplWorkerUrl(): URL | null {
  if (cached !== undefined) return cached;
  try {
    const require = createRequire(import.meta.url);
    const version = (JSON.parse(readFileSync(require.resolve("esbuild/package.json"), "utf8")) as { version: string }).version;
    if (!isFresh(version)) build(require("esbuild") as typeof import("esbuild"));
    cached = bundleFile;
  } catch {
    cached = null;
  }
  return cached;
}

function build(esbuild: typeof import("esbuild")): void {
  const result = esbuild.buildSync({
    absWorkingDir: fileURLToPath(root),
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    target: "node20",
    metafile: true,
    // Left to Node: pyodide finds its .wasm and stdlib next to its own module.
    external: ["pyodide"],
    // The entry reads rlm_runtime.py (at run time) next to itself, not next to the bundle.
    define: { "import.meta.url": JSON.stringify(entry.href) },
    logLevel: "silent",
  });
  const code = result.outputFiles[0]?.contents;
  if (!code) throw new Error("esbuild wrote nothing");
  const inputs = Object.keys(result.metafile.inputs).map((p) => stamp(fileURLToPath(new URL(p, root))));
  mkdirSync(cacheDir, { recursive: true });
  // Atomic: several rlm processes may build at once, and others may be starting workers from it.
  const suffix = `.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(fileURLToPath(bundleFile) + suffix, code);
  renameSync(fileURLToPath(bundleFile) + suffix, bundleFile);
  writeFileSync(fileURLToPath(manifestFile) + suffix, JSON.stringify({ esbuild: esbuild.version, inputs } satisfies Manifest));
  renameSync(fileURLToPath(manifestFile) + suffix, manifestFile);
}
