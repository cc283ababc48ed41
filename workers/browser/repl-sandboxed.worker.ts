// The REPL as a classic worker inside the sandboxed frame (src/repl/sandbox-frame.ts; Chromium).
// The frame has an opaque origin and its own process: a cell that exhausts memory takes down
// that process, not the page. Its first message brings everything: the port the page talks to
// it over, Pyodide's files as blob: URLs, the compiled WebAssembly module and an interrupt buffer.
// Built as one classic script by scripts/vite-sandboxed-repl-worker.ts (a module worker cannot
// start from a blob: URL in an opaque origin).
// First: Pyodide looks at the worker as its module loads.
import "./classic-worker-guard.ts";
import * as Comlink from "comlink";
import { browserReplWorker } from "./repl-browser-api.ts";
import type { SandboxWorkerSetup } from "../../src/repl/messages.ts";

self.addEventListener(
  "message",
  (event: MessageEvent) => {
    const setup = event.data as SandboxWorkerSetup;
    const api = browserReplWorker({
      ...(setup.interruptBuffer ? { interruptBuffer: setup.interruptBuffer } : {}),
      ...(setup.wasmModule ? { wasmModule: setup.wasmModule } : {}),
      pyodideFiles: async () => ({
        createPyodideModule: ((await import(/* @vite-ignore */ setup.files.asmUrl)) as { default: never }).default,
        stdLibURL: setup.files.stdlibUrl,
        lockFileContents: setup.files.lockFileContents,
      }),
    });
    Comlink.expose(api, setup.port);
  },
  { once: true },
);
