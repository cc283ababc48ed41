// Our TypeScript as one plain-JavaScript module per entry point, built with esbuild (the compiler
// tsx itself uses) into the checkout's .cache/ on first use and rebuilt when any input changes.
// Node 20 cannot run TypeScript; tsx compiling on load costs about 0.45 s of CPU on the `rlm`
// main thread and 0.7 s per worker thread (measured with --cpu-prof), more than Python's own work
// on a warm run. Plain JavaScript, so `bin/rlm.mjs` can use it before any TypeScript loads.
// Every failure returns null: the caller then loads the TypeScript through tsx as before.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = new URL("../../", import.meta.url);
/**
 * Never under node_modules: a new entry there makes npm's record of the installed packages look
 * out of date (node_modules/.package-lock.json is older than the folder), so every `npx rlm` read
 * all 735 packages again first: 8–25 s before the CLI started, against 0.5 s for `node bin/rlm.mjs`.
 */
export const BUNDLE_DIR = new URL(".cache/bundles/", root);
const cacheDir = BUNDLE_DIR;
// Named after the checkout too: two checkouts sharing node_modules (a linked worktree) must never
// run each other's bundle.
const checkout = createHash("sha256").update(fileURLToPath(root)).digest("hex").slice(0, 12);

const stamp = (path) => {
  const s = statSync(path);
  return { path, size: s.size, mtimeMs: s.mtimeMs };
};

function isFresh(manifestFile, esbuildVersion) {
  try {
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8"));
    if (manifest.esbuild !== esbuildVersion) return false;
    return manifest.inputs.every((input) => {
      const now = stamp(input.path);
      return now.size === input.size && now.mtimeMs === input.mtimeMs;
    });
  } catch {
    return false;
  }
}

/**
 * Each bundled file keeps its own `import.meta.url`: modules find files next to themselves
 * (the Python runtime package, the worker script), and after bundling they would all see the bundle's URL.
 */
const ownImportMetaUrl = {
  name: "own-import-meta-url",
  setup(build) {
    build.onLoad({ filter: /\.(ts|mts|mjs|js)$/ }, (args) => {
      if (args.path.includes("node_modules")) return undefined;
      const source = readFileSync(args.path, "utf8");
      // A regex, not the words as a string: this file is bundled too, and must not rewrite itself.
      const contents = source.replace(/\bimport\.meta\.url\b/g, JSON.stringify(pathToFileURL(args.path).href));
      return { contents, loader: args.path.endsWith("ts") ? "ts" : "js" };
    });
  },
};

async function build(esbuild, entry, bundleFile, manifestFile) {
  // Asynchronous: esbuild runs plugins only in its asynchronous API.
  const result = await esbuild.build({
    absWorkingDir: fileURLToPath(root),
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    target: "node20",
    metafile: true,
    // Packages stay with Node: pyodide finds its .wasm and stdlib next to its own module.
    packages: "external",
    plugins: [ownImportMetaUrl],
    logLevel: "silent",
  });
  const code = result.outputFiles[0]?.contents;
  if (!code) throw new Error("esbuild wrote nothing");
  const inputs = Object.keys(result.metafile.inputs).map((p) => stamp(fileURLToPath(new URL(p, root))));
  mkdirSync(cacheDir, { recursive: true });
  // Atomic: several rlm processes may build at once, and others may be loading the bundle.
  const suffix = `.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(fileURLToPath(bundleFile) + suffix, code);
  renameSync(fileURLToPath(bundleFile) + suffix, bundleFile);
  writeFileSync(fileURLToPath(manifestFile) + suffix, JSON.stringify({ esbuild: esbuild.version, inputs }));
  renameSync(fileURLToPath(manifestFile) + suffix, manifestFile);
}

/**
 * The URL of `entry` (a file URL of ours) bundled as plain JavaScript, built if missing or stale;
 * null when it cannot be had. `name` names the cache files.
 */
export async function cachedBundle(entry, name) {
  try {
    const bundleFile = new URL(`${name}-${checkout}.mjs`, cacheDir);
    const manifestFile = new URL(`${name}-${checkout}.json`, cacheDir);
    const require = createRequire(import.meta.url);
    const version = JSON.parse(readFileSync(require.resolve("esbuild/package.json"), "utf8")).version;
    if (!isFresh(manifestFile, version)) await build(require("esbuild"), entry, bundleFile, manifestFile);
    return bundleFile;
  } catch {
    return null;
  }
}
