// The REPL worker as a Node worker thread: in the CLI's sandbox process (workers/node/repl-sandbox-entry.node.ts
// starts it there), or directly in a test's process. Snapshots are files in the directory the host
// names (the CLI's cache directory); without one, Python boots from scratch.
import { constants as fsConstants } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import { version as pyodideVersion } from "pyodide";
import * as Comlink from "comlink/dist/esm/comlink.mjs";
import nodeEndpoint from "comlink/dist/esm/node-adapter.mjs";
import { localCacheWriter, portCacheWriter, type CacheWriter } from "../../src/repl/cache-writes.node.ts";
import { mountHostFile } from "./host-file.node.ts";
import { jsGlobals, lockDownNode, type NodeLockdown } from "./lockdown.node.ts";
import { createReplWorker } from "../shared/repl-runtime.ts";
import { pyodideScript, type PyodideScript } from "./pyodide-code-cache.node.ts";
import { readRuntimePackage } from "./runtime-package.node.ts";
import { fileSnapshotStore } from "./snapshot-store.node.ts";
import type { SnapshotSetting } from "../../src/repl/protocol.ts";

if (!parentPort) throw new Error("repl-entry.node.ts must run as a worker thread");
// Emscripten's NODEFS asks `process.binding("constants")` for the file-open flags as Python starts,
// and the permission model of the sandbox process refuses process.binding outright. The flags are
// public (fs.constants); nothing else is answered.
const withBinding = process as unknown as { binding(name: string): unknown };
const binding = withBinding.binding.bind(process);
withBinding.binding = (name: string) => (name === "constants" ? { fs: fsConstants } : binding(name));
// Pyodide finds its own files from a stack trace, which source maps (tsx, --enable-source-maps in
// the parent's flags) point at its TypeScript sources: "Cannot find module …/src/js/pyodide.asm.mjs".
const pyodideDir = `${dirname(createRequire(import.meta.url).resolve("pyodide/package.json"))}/`;
// Pyodide's WebAssembly, compiling since the thread's first module ran (repl-worker.node.mjs).
const slot = Symbol.for("recursive-reader.pyodide-wasm");
const prefetched = (globalThis as Record<symbol, { wasm: string; compiling: Promise<WebAssembly.Module | null> } | undefined>)[slot];
delete (globalThis as Record<symbol, unknown>)[slot];
/** What the sandbox process hands its worker (workers/node/repl-sandbox-entry.node.ts). */
const setup = (workerData ?? {}) as { interruptBuffer?: SharedArrayBuffer };
let script: PyodideScript | null = null;
let lockdown: NodeLockdown | null = null;

/** Who writes the cache directory: the sandbox's parent when a port is given, else this thread. */
function cacheWriter(setting: Extract<SnapshotSetting, { kind: "directory" }>): CacheWriter {
  return setting.writes ? portCacheWriter(setting.writes) : localCacheWriter(setting.path);
}
let writer: CacheWriter | null = null;
const writerFor = (setting: Extract<SnapshotSetting, { kind: "directory" }>) => (writer ??= cacheWriter(setting));

Comlink.expose(
  createReplWorker({
    runtimeFiles: readRuntimePackage(),
    indexURL: pyodideDir,
    ...(prefetched?.wasm === `${pyodideDir}pyodide.asm.wasm` ? { compiledWasm: prefetched.compiling } : {}),
    ...(setup.interruptBuffer ? { interruptBuffer: setup.interruptBuffer } : {}),
    // Part of the second wall: with it down (a test proving the first wall alone), `js` is the real global.
    jsglobals: (options) => (options.lockDown === false ? undefined : jsGlobals()),
    snapshotStore: (setting) =>
      setting?.kind === "directory" ? fileSnapshotStore(setting.path, writerFor(setting)) : { off: "the snapshot cache is off" },
    mountHostFile,
    // Pyodide's JavaScript runs as a script we compile (pyodide-code-cache.node.ts), so its
    // `import(…)` calls are ours to refuse; with a cache directory it comes from V8's code cache
    // kept there. It compiles on the event loop's next turn: by then the boot has asked for the
    // snapshot's bytes, which arrive meanwhile (Pyodide itself would compile only once they are in).
    pyodideFiles: async (setting) => {
      const cache = setting?.kind === "directory" ? { dir: setting.path, writer: writerFor(setting) } : null;
      script = pyodideScript(pyodideDir, cache, pyodideVersion);
      if (!script) return {};
      setImmediate(() => script?.prepare());
      return { createPyodideModule: script.createPyodideModule as never };
    },
    afterBoot: async (py, options) => {
      await script?.keep();
      if (options.lockDown !== false) lockdown = lockDownNode(py, () => script?.refuseImports());
    },
    afterCell: () => lockdown?.afterCell(),
  }),
  nodeEndpoint(parentPort),
);
