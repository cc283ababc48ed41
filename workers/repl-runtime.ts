// The worker side of the REPL, shared by the browser worker (repl.worker.ts) and the Node
// worker thread (repl.node-entry.ts). It starts Python (from a memory snapshot when it can, see
// snapshot-boot.ts) in named phases, and gives Python a blocking way to reach the host for sub-calls.
import type { PyodideInterface } from "pyodide";
import { bootPython } from "./snapshot-boot.ts";
import type { SnapshotStore } from "./snapshot-store.ts";
import {
  SAB_HEADER_BYTES,
  SAB_STATE_PENDING,
  SAB_STATE_READY,
  SAB_STATE_TOO_LARGE,
  type BootPhase,
  type ContextDocumentInput,
  type ContextShape,
  type ReplBootInfo,
  type ReplBootOptions,
  type ReplWorkerApi,
  type SnapshotSetting,
  type SubcallMessage,
  type SyncMode,
} from "../src/repl/protocol.ts";

type PyCallable = ((...args: unknown[]) => unknown) & {
  callPromising(...args: unknown[]): Promise<unknown>;
  destroy?: () => void;
};

export type { BootPhase };

/** The same test Pyodide makes: the new (Suspending) or the old (Suspender) JSPI API. */
function runtimeHasJspi(): boolean {
  return "Suspending" in WebAssembly || "Suspender" in WebAssembly;
}

function chooseSyncMode(options: ReplBootOptions): SyncMode {
  const mode = options.syncMode === "auto" ? (runtimeHasJspi() ? "jspi" : "sab") : options.syncMode;
  if (mode === "jspi" && !runtimeHasJspi()) {
    throw new Error("This JavaScript engine cannot suspend WebAssembly (no JSPI); use the SharedArrayBuffer mode.");
  }
  if (mode === "sab" && !options.sabBuffer) {
    throw new Error("The SharedArrayBuffer sub-call channel is missing; the page must be cross-origin isolated.");
  }
  return mode;
}

export interface ReplWorkerHooks {
  /** Source of workers/python/rlm_runtime.py (each entry loads it its own way). */
  pythonSource: string;
  /** Runs once Pyodide is up: the browser entry removes network globals here. */
  afterBoot?: () => void;
  onPhase?: (phase: BootPhase) => void;
  /** This runtime's snapshot storage for the boot's setting, or why there is none. */
  snapshotStore?: (setting: SnapshotSetting | undefined) => SnapshotStore | { off: string };
  /** Makes a host file readable at `at` in Python's file system (Node only). */
  mountHostFile?: (py: PyodideInterface, hostPath: string, at: string) => void;
}

type BlobDocument = Extract<ContextDocumentInput, { data: Blob }>;
const blobDocuments = (docs: ContextDocumentInput[]) => docs as BlobDocument[];

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

  /** Documents given by path (Node): one read-only file each, read by Python straight into its heap. */
  const mountHostFiles = (docs: ContextDocumentInput[], dir: string): string[] =>
    docs.map((d, i) => {
      if (!("path" in d)) throw new Error("Documents given by path and by content cannot be loaded together.");
      if (!hooks.mountHostFile) throw new Error("This REPL cannot read files by path; pass the document's content instead.");
      hooks.mountHostFile(need(), d.path, `${dir}/doc${i}`);
      return `${dir}/doc${i}`;
    });

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
      const mode = chooseSyncMode(options);
      const { call, callBlocking } = hostChannel(options.hostPort, options.sabBuffer);
      // A private SharedArrayBuffer gives Atomics.wait something to wait on; without one
      // (a page that is not cross-origin isolated) a short busy wait does the same job.
      const napCell = typeof SharedArrayBuffer === "function" ? new Int32Array(new SharedArrayBuffer(4)) : null;
      // Built before Python starts: a snapshot stores it by name and a restore plugs this one in.
      const hostModule = {
        mode,
        sleep_slice: (ms: number) => {
          if (napCell) Atomics.wait(napCell, 0, 0, ms);
          else for (const end = performance.now() + ms; performance.now() < end; );
          need().checkInterrupt();
        },
        call: (requestJson: string) => call(String(requestJson)),
        call_blocking: (requestJson: string) => {
          if (!callBlocking) throw new Error("no blocking channel");
          return callBlocking(String(requestJson));
        },
      };
      const store = hooks.snapshotStore?.(options.snapshot) ?? { off: "this runtime keeps no snapshots" };
      const { py: loaded, report } = await bootPython({
        ...(options.indexURL ? { indexURL: options.indexURL } : {}),
        runtimeSource: hooks.pythonSource,
        hostModule,
        ...("off" in store ? { store: null, offNote: store.off } : { store }),
        ...(options.snapshot?.kind !== "off" && options.snapshot?.rebuild ? { rebuild: true } : {}),
        ...(options.wasmModule ? { wasmModule: options.wasmModule } : {}),
        ...(hooks.onPhase ? { onPhase: hooks.onPhase } : {}),
      });
      py = loaded;
      if (options.interruptBuffer) loaded.setInterruptBuffer(new Uint8Array(options.interruptBuffer));
      const version = String(loaded.runPython("import sys; sys.version.split()[0]"));
      hooks.afterBoot?.();
      return { syncMode: mode, pythonVersion: version, bootMs: performance.now() - started, snapshot: report };
    },

    async loadDocuments(docs: ContextDocumentInput[], shape: ContextShape): Promise<string> {
      const p = need();
      const names = docs.map((d) => d.name);
      const canMount = typeof (globalThis as { FileReaderSync?: unknown }).FileReaderSync === "function";
      let sources: unknown[];
      if (docs.some((d) => "path" in d)) {
        sources = mountHostFiles(docs, `${inputRoot}/${mountCount++}`);
      } else if (canMount) {
        // WORKERFS reads the Blob lazily: no copy of the document passes through JS strings.
        const dir = `${inputRoot}/${mountCount++}`;
        p.FS.mkdirTree(dir);
        const fs = p.FS as unknown as { mount: (t: unknown, o: unknown, d: string) => void; filesystems: Record<string, unknown> };
        fs.mount(fs.filesystems.WORKERFS, { blobs: blobDocuments(docs).map((d, i) => ({ name: `doc${i}`, data: d.data })) }, dir);
        sources = docs.map((_, i) => `${dir}/doc${i}`);
      } else {
        sources = [];
        for (const d of blobDocuments(docs)) sources.push(new Uint8Array(await d.data.arrayBuffer()));
      }
      const pyNames = p.toPy(names);
      const pySources = p.toPy(sources, { depth: 1 });
      try {
        return String(fn("load_documents")(pyNames, pySources, shape));
      } finally {
        (pyNames as { destroy?: () => void }).destroy?.();
        (pySources as { destroy?: () => void }).destroy?.();
      }
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

    async stats() {
      const heap = (need() as unknown as { _module?: { HEAPU8?: Uint8Array } })._module?.HEAPU8;
      return { wasmHeapBytes: heap?.buffer.byteLength ?? 0 };
    },
  };
}
