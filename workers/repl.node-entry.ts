// The REPL worker as a Node worker thread (CLI, tests, benchmarks). Snapshots are files in the
// directory the host names (the CLI's cache directory); without one, Python boots from scratch.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { parentPort } from "node:worker_threads";
import { version as pyodideVersion } from "pyodide";
import * as Comlink from "comlink/dist/esm/comlink.mjs";
import nodeEndpoint from "comlink/dist/esm/node-adapter.mjs";
import { mountHostFile } from "./host-file-node.ts";
import { createReplWorker } from "./repl-runtime.ts";
import { pyodideScript, type PyodideScript } from "./pyodide-code-cache.node.ts";
import { fileSnapshotStore } from "./snapshot-store-node.ts";

if (!parentPort) throw new Error("repl.node-entry.ts must run as a worker thread");
const pythonSource = readFileSync(new URL("./python/rlm_runtime.py", import.meta.url), "utf8");
// Pyodide finds its own files from a stack trace, which source maps (tsx, --enable-source-maps in
// the parent's flags) point at its TypeScript sources: "Cannot find module …/src/js/pyodide.asm.mjs".
const pyodideDir = `${dirname(createRequire(import.meta.url).resolve("pyodide/package.json"))}/`;
// Pyodide's WebAssembly, compiling since the thread's first module ran (repl.node-worker.mjs).
const slot = Symbol.for("recursive-reader.pyodide-wasm");
const prefetched = (globalThis as Record<symbol, { wasm: string; compiling: Promise<WebAssembly.Module | null> } | undefined>)[slot];
delete (globalThis as Record<symbol, unknown>)[slot];
let script: PyodideScript | null = null;
const evidence = { filename: "rlm_evidence.py", source: readFileSync(new URL("./python/rlm_evidence.py", import.meta.url), "utf8") };
Comlink.expose(
  createReplWorker({
    pythonSource,
    pythonSections: [evidence],
    indexURL: pyodideDir,
    ...(prefetched?.wasm === `${pyodideDir}pyodide.asm.wasm` ? { compiledWasm: prefetched.compiling } : {}),
    snapshotStore: (setting) => (setting?.kind === "directory" ? fileSnapshotStore(setting.path) : { off: "the snapshot cache is off" }),
    mountHostFile,
    // With a cache directory, Pyodide's JavaScript comes compiled from V8's code cache kept there.
    // It compiles on the event loop's next turn: by then the boot has asked for the snapshot's
    // bytes, which arrive meanwhile (Pyodide itself would compile only once they are in).
    pyodideFiles: async (setting) => {
      script = setting?.kind === "directory" ? pyodideScript(pyodideDir, setting.path, pyodideVersion) : null;
      if (!script) return {};
      setImmediate(() => script?.prepare());
      return { createPyodideModule: script.createPyodideModule as never };
    },
    afterBoot: () => script?.keep(),
  }),
  nodeEndpoint(parentPort),
);
