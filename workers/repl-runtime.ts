// The worker side of the REPL, shared by the browser worker (repl.worker.ts) and the Node
// worker thread (repl.node-entry.ts). It boots Pyodide in named phases, installs the Python
// runtime, and gives Python a blocking way to reach the host for sub-calls.
import { loadPyodide, type PyodideInterface } from "pyodide";
import {
  SAB_HEADER_BYTES,
  SAB_STATE_PENDING,
  SAB_STATE_READY,
  SAB_STATE_TOO_LARGE,
  type ContextDocumentInput,
  type ContextShape,
  type ReplBootInfo,
  type ReplBootOptions,
  type ReplWorkerApi,
  type SubcallMessage,
  type SyncMode,
} from "../src/repl/protocol.ts";

type PyCallable = ((...args: unknown[]) => unknown) & {
  callPromising(...args: unknown[]): Promise<unknown>;
  destroy?: () => void;
};

export type BootPhase = "loading-pyodide" | "installing-runtime" | "ready";

/** The same test Pyodide makes: the new (Suspending) or the old (Suspender) JSPI API. */
function runtimeHasJspi(): boolean {
  return "Suspending" in WebAssembly || "Suspender" in WebAssembly;
}

export interface ReplWorkerHooks {
  /** Source of workers/python/rlm_runtime.py (each entry loads it its own way). */
  pythonSource: string;
  /** Sections run after it in the same namespace: workers/python/rlm_evidence.py. */
  pythonSections?: Array<{ filename: string; source: string }>;
  /** Runs once Pyodide is up: the browser entry removes network globals here. */
  afterBoot?: () => void;
  onPhase?: (phase: BootPhase) => void;
}

export function createReplWorker(hooks: ReplWorkerHooks): ReplWorkerApi {
  let py: PyodideInterface | undefined;
  let mountCount = 0;
  const inputRoot = "/input";

  const need = (): PyodideInterface => {
    if (!py) throw new Error("The Python REPL is not started yet. Wait for it to finish loading.");
    return py;
  };

  // Python functions are looked up once; each lookup creates a proxy that would otherwise leak.
  const functions = new Map<string, PyCallable>();
  const fn = (name: string): PyCallable => {
    let f = functions.get(name);
    if (!f) {
      f = need().globals.get(name) as PyCallable;
      functions.set(name, f);
    }
    return f;
  };

  /**
   * Where Python reads a document from. In a browser worker the Blob is mounted with WORKERFS, so
   * its bytes go straight from the Blob into Python without a JS copy; the mount is removed as
   * soon as Python has decoded it, so the worker keeps no reference to the Blob (a removed
   * document is really released). Node has no FileReaderSync, so the bytes are read first.
   */
  async function documentSource(data: Blob): Promise<{ value: unknown; release: () => void }> {
    const p = need();
    if (typeof (globalThis as { FileReaderSync?: unknown }).FileReaderSync !== "function") {
      return { value: new Uint8Array(await data.arrayBuffer()), release: () => undefined };
    }
    const dir = `${inputRoot}/${mountCount++}`;
    const fs = p.FS as unknown as {
      mkdirTree: (d: string) => void;
      mount: (t: unknown, o: unknown, d: string) => void;
      unmount: (d: string) => void;
      rmdir: (d: string) => void;
      filesystems: Record<string, unknown>;
    };
    fs.mkdirTree(dir);
    fs.mount(fs.filesystems.WORKERFS, { blobs: [{ name: "doc", data }] }, dir);
    return {
      value: `${dir}/doc`,
      release: () => {
        fs.unmount(dir);
        fs.rmdir(dir);
      },
    };
  }

  /** Sub-calls travel on one MessagePort with a two-message protocol (see SubcallMessage). */
  function hostChannel(port: MessagePort, sabBuffer: SharedArrayBuffer | undefined) {
    let nextId = 0;
    const pending = new Map<number, (reply: string) => void>();
    port.onmessage = (event: MessageEvent) => {
      const m = event.data as SubcallMessage;
      if (m?.type !== "reply") return;
      pending.get(m.id)?.(String(m.reply));
      pending.delete(m.id);
    };
    const send = (request: string): number => {
      const id = ++nextId;
      port.postMessage({ type: "request", id, request } satisfies SubcallMessage);
      return id;
    };
    const call = (request: string): Promise<string> =>
      new Promise((resolve) => {
        pending.set(send(request), resolve);
      });
    let callBlocking: ((request: string) => string) | undefined;
    if (sabBuffer) {
      const ctrl = new Int32Array(sabBuffer, 0, 2);
      const data = new Uint8Array(sabBuffer, SAB_HEADER_BYTES);
      callBlocking = (request: string): string => {
        Atomics.store(ctrl, 0, SAB_STATE_PENDING);
        send(request);
        // Wake up every 100 ms to let Stop raise KeyboardInterrupt while the host is busy.
        while (Atomics.load(ctrl, 0) === SAB_STATE_PENDING) {
          Atomics.wait(ctrl, 0, SAB_STATE_PENDING, 100);
          need().checkInterrupt();
        }
        const state = Atomics.load(ctrl, 0);
        const length = Atomics.load(ctrl, 1);
        // slice(): TextDecoder refuses views on a SharedArrayBuffer.
        const text = new TextDecoder().decode(data.slice(0, length));
        Atomics.store(ctrl, 0, 0);
        if (state === SAB_STATE_TOO_LARGE) {
          return JSON.stringify({ results: [] }); // the Python side turns a short list into an Error: string
        }
        if (state !== SAB_STATE_READY) throw new Error("sub-call channel in an unexpected state");
        return text;
      };
    }
    return { call, callBlocking };
  }

  return {
    async boot(options: ReplBootOptions): Promise<ReplBootInfo> {
      const started = performance.now();
      hooks.onPhase?.("loading-pyodide");
      const loaded = await loadPyodide({
        ...(options.indexURL ? { indexURL: options.indexURL } : {}),
        fullStdLib: false,
      });
      py = loaded;
      hooks.onPhase?.("installing-runtime");
      let mode: SyncMode;
      if (options.syncMode === "auto") {
        mode = runtimeHasJspi() ? "jspi" : "sab";
      } else {
        mode = options.syncMode;
      }
      if (mode === "jspi" && !runtimeHasJspi()) {
        throw new Error("This JavaScript engine cannot suspend WebAssembly (no JSPI); use the SharedArrayBuffer mode.");
      }
      if (mode === "sab" && !options.sabBuffer) {
        throw new Error("The SharedArrayBuffer sub-call channel is missing; the page must be cross-origin isolated.");
      }
      const { call, callBlocking } = hostChannel(options.hostPort, options.sabBuffer);
      // A private SharedArrayBuffer gives Atomics.wait something to wait on; without one
      // (a page that is not cross-origin isolated) a short busy wait does the same job.
      const napCell = typeof SharedArrayBuffer === "function" ? new Int32Array(new SharedArrayBuffer(4)) : null;
      loaded.registerJsModule("_rlm_host", {
        mode,
        sleep_slice: (ms: number) => {
          if (napCell) Atomics.wait(napCell, 0, 0, ms);
          else for (const end = performance.now() + ms; performance.now() < end; );
          loaded.checkInterrupt();
        },
        call: (requestJson: string) => call(String(requestJson)),
        call_blocking: (requestJson: string) => {
          if (!callBlocking) throw new Error("no blocking channel");
          return callBlocking(String(requestJson));
        },
      });
      if (options.interruptBuffer) loaded.setInterruptBuffer(new Uint8Array(options.interruptBuffer));
      loaded.runPython(hooks.pythonSource, { filename: "rlm_runtime.py" });
      for (const section of hooks.pythonSections ?? []) loaded.runPython(section.source, { filename: section.filename });
      if (options.recordSources === false) loaded.runPython("_evidence.enabled = False");
      const version = String(loaded.runPython("import sys; sys.version.split()[0]"));
      hooks.afterBoot?.();
      hooks.onPhase?.("ready");
      return { syncMode: mode, pythonVersion: version, bootMs: performance.now() - started };
    },

    async loadDocuments(docs: ContextDocumentInput[], shape: ContextShape): Promise<string> {
      const sources = await Promise.all(docs.map((d) => documentSource(d.data)));
      const pyNames = need().toPy(docs.map((d) => d.name));
      const pySources = need().toPy(sources.map((s) => s.value), { depth: 1 });
      try {
        return String(fn("load_documents")(pyNames, pySources, shape));
      } finally {
        (pyNames as { destroy?: () => void }).destroy?.();
        (pySources as { destroy?: () => void }).destroy?.();
        for (const s of sources) s.release();
      }
    },

    async addDocument(name: string, data: Blob): Promise<string> {
      const source = await documentSource(data);
      try {
        return String(fn("add_document")(name, source.value));
      } finally {
        source.release();
      }
    },

    async removeDocument(name: string): Promise<string> {
      return String(fn("remove_document")(name));
    },

    async setContextText(text: string): Promise<string> {
      fn("set_context")(text);
      return String(fn("context_json")());
    },

    async runCell(code: string, outputCap: number): Promise<string> {
      const runCell = fn("run_cell");
      // callPromising: JSPI can only suspend a stack that was entered through a promising call.
      // Without JSPI, calling the coroutine function returns a plain Promise.
      const pending = runtimeHasJspi() ? runCell.callPromising(code, outputCap) : runCell(code, outputCap);
      return String(await pending);
    },

    async beginQuestion(historyJson: string): Promise<void> {
      fn("set_history")(historyJson);
      fn("begin_question")();
    },

    async resetNamespace(): Promise<void> {
      fn("reset_namespace")();
    },

    async variableNames(): Promise<string> {
      return String(fn("variable_names")());
    },

    async sourcePassages(rangesJson: string): Promise<string> {
      return String(fn("source_passages")(rangesJson));
    },

    async stats() {
      const heap = (need() as unknown as { _module?: { HEAPU8?: Uint8Array } })._module?.HEAPU8;
      return { wasmHeapBytes: heap?.buffer.byteLength ?? 0 };
    },
  };
}
