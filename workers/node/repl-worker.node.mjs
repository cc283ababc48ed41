// The Node REPL worker thread's first module. Node 20 cannot run TypeScript by itself: the worker
// runs from a cached plain-JavaScript bundle of repl-entry.node.ts (src/node/esbuild-cache.mjs),
// since tsx compiling in a worker thread costs about 0.7 s of CPU per start (its loader thread
// plus a round trip to it for every import); tsx is the fallback when the bundle cannot be had.
import { closeSync, fstatSync, openSync } from "node:fs";
import { createRequire } from "node:module";
import { workerData } from "node:worker_threads";
import { cachedBundle } from "../../src/node/esbuild-cache.mjs";
import { readWhole } from "../../src/node/read-whole.mjs";

// Python's WebAssembly starts compiling now, on V8's background threads, while this thread loads
// its bundle, reads the snapshot and compiles Pyodide's JavaScript; Pyodide would otherwise start
// it only once all of that is done (~30–60 ms of a warm start's wall time). The entry hands the
// Module to Pyodide (shared-wasm.ts); a failure here only means Pyodide compiles its own.
// The 9.6 MB are read in one thread-pool request: readFileSync took ~10 ms of this thread, which
// has nothing to spare until Python is up.
globalThis[Symbol.for("recursive-reader.pyodide-wasm")] = (() => {
  try {
    const wasm = createRequire(import.meta.url).resolve("pyodide/pyodide.asm.wasm");
    const compiling = readWasm(wasm)
      .then((bytes) => WebAssembly.compile(bytes))
      .catch(() => null);
    return { wasm, compiling };
  } catch {
    return undefined;
  }
})();

async function readWasm(path) {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const bytes = await readWhole(fd, size);
    if (bytes.length !== size) throw new Error(`${path} is shorter than its size`);
    return bytes;
  } finally {
    closeSync(fd);
  }
}

const entry = new URL("./repl-entry.node.ts", import.meta.url);
// The sandbox process names the bundle its parent made current: it may not build one itself.
const given = workerData?.bundle ? new URL(workerData.bundle) : null;
const bundle = given ?? (process.env.RLM_NO_BUNDLE ? null : await cachedBundle(entry, "repl-worker"));
if (bundle) {
  await import(bundle.href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("./repl-entry.node.ts");
}
