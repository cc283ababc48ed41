// The worker side of the REPL, shared by the browser worker (repl.worker.ts) and the Node
// worker thread (repl.node-entry.ts). It starts Python (from a memory snapshot when it can, see
// snapshot-boot.ts) in named phases, and gives Python a blocking way to reach the host for sub-calls.
import type { PyodideInterface } from "pyodide";
import { bootPython, type PyodideFiles } from "./snapshot-boot.ts";
import type { SnapshotStore } from "./snapshot-store.ts";
import type { SharedWasm } from "./shared-wasm.ts";
import { bindRuntime, type PythonRuntime } from "./python-runtime.ts";
import type { RuntimeFile } from "./runtime-package.ts";
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
  FINAL_ANSWER_MAX_CHARS,
  capText,
  maxCellResultChars,
  type SyncMode,
} from "../src/repl/protocol.ts";
import { groupDigits } from "../src/core/numbers.ts";

export type { BootPhase };

/** The same test Pyodide makes: the new (Suspending) or the old (Suspender) JSPI API. */
function runtimeHasJspi(): boolean {
  return "Suspending" in WebAssembly || "Suspender" in WebAssembly;
}

export interface ReplWorkerHooks {
  /** The runtime package's files (each entry reads them its own way: runtime-package.*.ts). */
  runtimeFiles: readonly RuntimeFile[];
  /**
   * Runs once Pyodide is up, before the boot call answers: each entry raises its second wall here
   * (lockdown.ts). The boot waits for what it returns.
   */
  afterBoot?: (py: PyodideInterface, options: ReplBootOptions) => void | Promise<void>;
  /** Runs after every cell: the browser entry cancels timers the cell left behind. */
  afterCell?: () => void;
  onPhase?: (phase: BootPhase) => void;
  /** This runtime's snapshot storage for the boot's setting, or why there is none. */
  snapshotStore?: (setting: SnapshotSetting | undefined) => SnapshotStore | { off: string };
  /** Where Pyodide's files are when the host names none (Node: the installed package). */
  indexURL?: string;
  /** pyodide.asm.wasm from `indexURL`, compiled (or compiling) ahead of the boot (Node). */
  compiledWasm?: SharedWasm;
  /**
   * Pyodide's files when they cannot be fetched from `indexURL` (the sandboxed frame's worker has
   * an opaque origin and no network: the page hands it the files, and it reads them from blob: URLs),
   * or come faster another way (Node: its JavaScript from a code cache in the snapshot's directory).
   */
  pyodideFiles?: (snapshot: SnapshotSetting | undefined) => Promise<PyodideFiles>;
  /** An interrupt buffer of the worker's own side, when the host cannot share memory with it (the sandboxed frame). */
  interruptBuffer?: SharedArrayBuffer;
  /** pyodide.asm.wasm compiled by the side that started this worker, when the host's boot options carry none. */
  wasmModule?: WebAssembly.Module;
  /** The object Python's `js` module shows for a boot (Node: only what the runtime needs, lockdown.node.ts). */
  jsglobals?: (options: ReplBootOptions) => object | undefined;
  /** Makes a host file readable at `at` in Python's file system (Node only). */
  mountHostFile?: (py: PyodideInterface, hostPath: string, at: string) => void;
}

/** What the worker tells the host on the private port (see src/repl/pulse.ts). */
interface Pulse {
  cellStarted(id: number): void;
  cellFinished(id: number, result: string): void;
}

/**
 * The worker's end of the private port: heartbeats, and each cell's start and result. The
 * port's postMessage is taken now, before any Python runs, so a cell that patches
 * MessagePort.prototype cannot silence or fake it. A heartbeat's answer first goes twice round a
 * private channel and a timer turn, so work a cell left queued runs before it: a worker that
 * such work wedges stays silent instead of answering just ahead of it.
 */
function privatePulse(port: MessagePort): Pulse {
  const send = port.postMessage.bind(port);
  const later = setTimeout.bind(globalThis);
  const loop = new MessageChannel();
  const bounce = loop.port2.postMessage.bind(loop.port2);
  loop.port1.onmessage = (event: MessageEvent) => {
    const [nonce, rounds] = event.data as [unknown, number];
    if (rounds > 0) bounce([nonce, rounds - 1]);
    else later(() => send(nonce), 0);
  };
  port.onmessage = (event: MessageEvent) => bounce([event.data, 1]);
  return {
    cellStarted: (id) => send({ started: id }),
    cellFinished: (id, result) => send({ id, result }),
  };
}

// Taken before any Python runs: a cell can replace JSON.parse on the global, not these.
const parseJson = JSON.parse;
const toJson = JSON.stringify;

/** A first cut before the result crosses to the page (the page cuts again itself). */
function capForHost(raw: string, outputCap: number): string {
  return raw.length > maxCellResultChars(outputCap) ? cutResult(raw, outputCap) : raw;
}

/**
 * A result over the size limit (Python's own cap was patched away): each field is cut to the
 * cap, so the cell's answer and the session survive; only what cannot be read is dropped.
 */
function cutResult(raw: string, outputCap: number): string {
  let v: Record<string, unknown>;
  try {
    v = parseJson(raw) as Record<string, unknown>;
  } catch {
    return droppedResult(raw.length);
  }
  const text = (x: unknown, cap: number) => (typeof x === "string" ? capText(x, cap) : x);
  return toJson({
    ...v,
    stdout: text(v.stdout, outputCap),
    stderr: text(v.stderr, outputCap),
    final_answer: text(v.final_answer, FINAL_ANSWER_MAX_CHARS),
    locals: {},
  });
}

/** A cell result that is not text, or cannot be read: replaced by an error the page shows. */
function droppedResult(length: number): string {
  const what = length < 0 ? "was not text" : `was ${groupDigits(length)} characters, over the limit`;
  return JSON.stringify({
    stdout: "",
    stderr: `ProtocolError: the cell's result ${what}, so it was dropped. Print less.\n`,
    final_answer: null,
    locals: {},
    execution_time: 0,
    error: "ProtocolError",
    interrupted: false,
  });
}

export function createReplWorker(hooks: ReplWorkerHooks): ReplWorkerApi {
  let py: PyodideInterface | undefined;
  let runtime: PythonRuntime | undefined;
  let mountCount = 0;
  let pulse: Pulse | null = null;
  let cellOutputCap = 0;
  const inputRoot = "/input";

  const need = (): PyodideInterface => {
    if (!py) throw new Error("The Python REPL is not started yet. Wait for it to finish loading.");
    return py;
  };

  // The runtime's one object; its methods were looked up once, when Python started.
  const python = (): PythonRuntime => {
    need();
    return runtime!;
  };

  /**
   * Where Python reads a document from, released once Python has decoded it. A Blob is mounted
   * with WORKERFS in a browser worker, so its bytes go straight from the Blob into Python without
   * a JS copy, and the mount is removed at once: the worker keeps no reference to the Blob (a
   * removed document is really released). Node has no FileReaderSync: a Blob is read first, and a
   * document given by path (the CLI) is one read-only host file that Python reads into its heap.
   */
  async function documentSource(doc: ContextDocumentInput): Promise<{ value: unknown; release: () => void }> {
    const p = need();
    const fs = p.FS as unknown as {
      mkdirTree: (d: string) => void;
      mount: (t: unknown, o: unknown, d: string) => void;
      unmount: (d: string) => void;
      rmdir: (d: string) => void;
      unlink: (f: string) => void;
      filesystems: Record<string, unknown>;
    };
    const dir = `${inputRoot}/${mountCount++}`;
    if ("path" in doc) {
      if (!hooks.mountHostFile) throw new Error("This REPL cannot read files by path; pass the document's content instead.");
      fs.mkdirTree(dir);
      hooks.mountHostFile(p, doc.path, `${dir}/doc`);
      return { value: `${dir}/doc`, release: () => (fs.unlink(`${dir}/doc`), fs.rmdir(dir)) };
    }
    if (typeof (globalThis as { FileReaderSync?: unknown }).FileReaderSync !== "function") {
      return { value: new Uint8Array(await doc.data.arrayBuffer()), release: () => undefined };
    }
    fs.mkdirTree(dir);
    fs.mount(fs.filesystems.WORKERFS, { blobs: [{ name: "doc", data: doc.data }] }, dir);
    return { value: `${dir}/doc`, release: () => (fs.unmount(dir), fs.rmdir(dir)) };
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

  /**
   * Blocking sub-calls for engines with neither JSPI nor a usable SharedArrayBuffer: a
   * synchronous POST that the service worker relays to the page and answers when the page does.
   */
  function relayedCall(url: string): (request: string) => string {
    // Taken now: lockDown() removes the global after boot, and Python reaches only this closure,
    // which can post to this one same-origin URL and nowhere else.
    const Request = XMLHttpRequest;
    return (request: string): string => {
      const xhr = new Request();
      xhr.open("POST", url, false);
      xhr.setRequestHeader("Content-Type", "text/plain;charset=UTF-8");
      xhr.send(request);
      if (xhr.status !== 200) {
        throw new Error(`the service worker did not relay the sub-call (HTTP ${xhr.status}); reload the page`);
      }
      return xhr.responseText;
    };
  }

  /** JSPI where the engine can suspend WebAssembly, else the first blocking channel the host gave. */
  function chooseSyncMode(options: ReplBootOptions): SyncMode {
    const mode: SyncMode =
      options.syncMode !== "auto" ? options.syncMode : runtimeHasJspi() ? "jspi" : options.sabBuffer ? "sab" : "service-worker";
    if (mode === "jspi" && !runtimeHasJspi()) {
      throw new Error("This JavaScript engine cannot suspend WebAssembly (no JSPI); use the SharedArrayBuffer mode.");
    }
    if (mode === "sab" && !options.sabBuffer) {
      throw new Error("The SharedArrayBuffer sub-call channel is missing; the page must be cross-origin isolated.");
    }
    if (mode === "service-worker" && !options.subcallUrl) {
      throw new Error(
        "This browser has neither JSPI nor SharedArrayBuffer, and no service worker controls the page to relay sub-calls " +
          "(serve the app over http://localhost or https, and reload once it is installed)",
      );
    }
    return mode;
  }

  return {
    async boot(options: ReplBootOptions): Promise<ReplBootInfo> {
      const started = performance.now();
      const mode = chooseSyncMode(options);
      const channel = hostChannel(options.hostPort, options.sabBuffer);
      const { call } = channel;
      const callBlocking = mode === "service-worker" && options.subcallUrl ? relayedCall(options.subcallUrl) : channel.callBlocking;
      // A private SharedArrayBuffer gives Atomics.wait something to wait on; without one
      // (a page that is not cross-origin isolated) a short busy wait does the same job.
      const napCell = typeof SharedArrayBuffer === "function" ? new Int32Array(new SharedArrayBuffer(4)) : null;
      const interruptSource = options.interruptBuffer ?? hooks.interruptBuffer;
      const interruptBuffer = interruptSource ? new Uint8Array(interruptSource) : undefined;
      // Built before Python starts: a snapshot stores it by name and a restore plugs this one in.
      const hostModule = {
        mode,
        sleep_slice: (ms: number) => {
          if (napCell) Atomics.wait(napCell, 0, 0, ms);
          else for (const end = performance.now() + ms; performance.now() < end;);
          need().checkInterrupt();
        },
        call: (requestJson: string) => call(String(requestJson)),
        // Python calls these as the first and last steps of a cell: if work left behind by an
        // earlier cell holds the worker, the start never comes and the host rebuilds it; the
        // result goes out at once, so work that wedges the worker after the cell cannot hold it.
        cell_started: (id: number) => pulse?.cellStarted(Number(id)),
        cell_finished: (id: number, result: string) => pulse?.cellFinished(Number(id), capForHost(String(result), cellOutputCap)),
        // Python arms the interrupt buffer while a cell's own code runs, and only then (see
        // interrupts in workers/python/rlm_runtime/host.py).
        // A buffer of the worker's own (the sandboxed frame's) cannot be cleared by the host before
        // a cell: clear it here. A Stop sent just before is not lost: the host repeats it.
        interrupts: (on: boolean) => {
          if (on && interruptBuffer && !options.interruptBuffer) interruptBuffer[0] = 0;
          need().setInterruptBuffer((on && interruptBuffer) as Uint8Array);
        },
        call_blocking: (requestJson: string) => {
          if (!callBlocking) throw new Error("no blocking channel");
          return callBlocking(String(requestJson));
        },
      };
      const store = hooks.snapshotStore?.(options.snapshot) ?? { off: "this runtime keeps no snapshots" };
      const { py: loaded, report } = await bootPython({
        ...((options.indexURL ?? hooks.indexURL) ? { indexURL: options.indexURL ?? hooks.indexURL } : {}),
        runtimeFiles: hooks.runtimeFiles,
        hostModule,
        ...("off" in store ? { store: null, offNote: store.off } : { store }),
        ...(options.snapshot?.kind !== "off" && options.snapshot?.rebuild ? { rebuild: true } : {}),
        ...(hooks.pyodideFiles ? { pyodideFiles: await hooks.pyodideFiles(options.snapshot) } : {}),
        ...((options.wasmModule ?? hooks.wasmModule)
          ? { wasmModule: (options.wasmModule ?? hooks.wasmModule)! }
          : hooks.compiledWasm && (options.indexURL ?? hooks.indexURL) === hooks.indexURL
            ? { wasmModule: hooks.compiledWasm }
            : {}),
        ...(hooks.onPhase ? { onPhase: hooks.onPhase } : {}),
        ...(hooks.jsglobals?.(options) ? { jsglobals: hooks.jsglobals(options) } : {}),
      });
      py = loaded;
      runtime = bindRuntime(loaded);
      if (options.pingPort) pulse = privatePulse(options.pingPort);
      if (options.recordSources === false) runtime.recordSources(false);
      await hooks.afterBoot?.(loaded, options);
      return { syncMode: mode, pythonVersion: runtime.pythonVersion, bootMs: performance.now() - started, snapshot: report };
    },

    async loadDocuments(docs: ContextDocumentInput[], shape: ContextShape): Promise<string> {
      const sources = await Promise.all(docs.map((d) => documentSource(d)));
      const pyNames = need().toPy(docs.map((d) => d.name));
      const pySources = need().toPy(
        sources.map((s) => s.value),
        { depth: 1 },
      );
      try {
        return python().loadDocuments(pyNames, pySources, shape);
      } finally {
        (pyNames as { destroy?: () => void }).destroy?.();
        (pySources as { destroy?: () => void }).destroy?.();
        for (const s of sources) s.release();
      }
    },

    async addDocument(doc: ContextDocumentInput): Promise<string> {
      const source = await documentSource(doc);
      try {
        return python().addDocument(doc.name, source.value);
      } finally {
        source.release();
      }
    },

    async removeDocument(name: string): Promise<string> {
      return python().removeDocument(name);
    },

    async setContextText(text: string): Promise<string> {
      return python().setContext(text);
    },

    async runCell(code: string, outputCap: number, cellId = 0): Promise<string> {
      const { runCell } = python();
      cellOutputCap = outputCap;
      try {
        // callPromising: JSPI can only suspend a stack that was entered through a promising call.
        // Without JSPI, calling the coroutine function returns a plain Promise.
        const args = [code, outputCap, cellId];
        const pending = runtimeHasJspi() ? runCell.callPromising(...args) : runCell(...args);
        const raw: unknown = await pending;
        return typeof raw === "string" ? capForHost(raw, outputCap) : droppedResult(-1);
      } finally {
        hooks.afterCell?.();
      }
    },

    async beginQuestion(historyJson: string): Promise<void> {
      python().beginQuestion(historyJson);
    },

    async resetNamespace(): Promise<void> {
      python().resetNamespace();
    },

    async variableNames(): Promise<string> {
      return python().variableNames();
    },

    async sourcePassages(rangesJson: string): Promise<string> {
      return python().sourcePassages(rangesJson);
    },

    // The host's own questions (syntax, layout, read, rank, configure, place, lines): a call of its
    // own, not a cell, so no output cap, evidence recording or locals snapshot applies.
    async probe(requestJson: string): Promise<string> {
      return python().probe(String(requestJson));
    },

    async stats() {
      const heap = (need() as unknown as { _module?: { HEAPU8?: Uint8Array } })._module?.HEAPU8;
      return { wasmHeapBytes: heap?.buffer.byteLength ?? 0 };
    },
  };
}
