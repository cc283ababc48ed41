// The worker side of the REPL, shared by the browser worker (repl-browser-api.ts) and the Node
// worker thread (repl-entry.node.ts). Its boot runs four named phases, each a function of its own:
//   1. connectHost   how Python reaches the host: the sync mode, the sub-call channel and the
//                    `_rlm_host` module (repl-host-bridge.ts), ready before Python starts;
//   2. startPython   Pyodide with the runtime package, from a memory snapshot when it can
//                    (snapshot-boot.ts), through the entry's hooks for files, storage and wasm;
//   3. openRuntime   the runtime's one object (python-runtime.ts), the private heartbeat port,
//                    and whether cells record what they read;
//   4. raiseWalls    the entry's second wall (afterBoot: lockdown.ts, lockdown.node.ts).
// Every later call goes to the runtime object's methods.
import type { PyodideInterface } from "pyodide";
import { bootPython, type PyodideFiles, type PythonBootResult } from "./snapshot-boot.ts";
import type { SnapshotStore } from "../../src/repl/snapshot-store.ts";
import type { SharedWasm } from "./shared-wasm.ts";
import type {
  BootPhase,
  ContextDocumentInput,
  ContextShape,
  ReplBootInfo,
  ReplBootOptions,
  ReplWorkerApi,
  SnapshotSetting,
} from "../../src/repl/protocol.ts";
import { capForHost, droppedResult } from "./repl-cell-results.ts";
import { documentSources, type MountHostFile } from "./repl-documents.ts";
import { connectHost, runtimeHasJspi, type BridgeState } from "./repl-host-bridge.ts";
import { privatePulse, type Pulse } from "./repl-pulse.ts";
import { bindRuntime, type PythonRuntime } from "./python-runtime.ts";
import type { RuntimeFile } from "./runtime-package.ts";

export type { BootPhase };

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
  mountHostFile?: MountHostFile;
}

/** What the worker holds once started. */
interface Started {
  py: PyodideInterface;
  runtime: PythonRuntime;
}

/** Phase 2: Pyodide and the runtime package, restored from a snapshot or booted, as the hooks say. */
async function startPython(options: ReplBootOptions, hooks: ReplWorkerHooks, hostModule: object): Promise<PythonBootResult> {
  const indexURL = options.indexURL ?? hooks.indexURL;
  const wasmModule =
    options.wasmModule ?? hooks.wasmModule ?? (hooks.compiledWasm && indexURL === hooks.indexURL ? hooks.compiledWasm : undefined);
  const store = hooks.snapshotStore?.(options.snapshot) ?? { off: "this runtime keeps no snapshots" };
  const jsglobals = hooks.jsglobals?.(options);
  return bootPython({
    ...(indexURL ? { indexURL } : {}),
    runtimeFiles: hooks.runtimeFiles,
    hostModule,
    ...("off" in store ? { store: null, offNote: store.off } : { store }),
    ...(options.snapshot?.kind !== "off" && options.snapshot?.rebuild ? { rebuild: true } : {}),
    ...(hooks.pyodideFiles ? { pyodideFiles: await hooks.pyodideFiles(options.snapshot) } : {}),
    ...(wasmModule ? { wasmModule } : {}),
    ...(hooks.onPhase ? { onPhase: hooks.onPhase } : {}),
    ...(jsglobals ? { jsglobals } : {}),
  });
}

/** Phase 3: the runtime object, the private heartbeat port, and whether cells record their reads. */
function openRuntime(py: PyodideInterface, options: ReplBootOptions): { runtime: PythonRuntime; pulse: Pulse | null } {
  const runtime = bindRuntime(py);
  const pulse = options.pingPort ? privatePulse(options.pingPort) : null;
  if (options.recordSources === false) runtime.recordSources(false);
  return { runtime, pulse };
}

/** Phase 4: the entry's second wall (lockdown.ts, lockdown.node.ts), up before the boot call answers. */
async function raiseWalls(py: PyodideInterface, options: ReplBootOptions, hooks: ReplWorkerHooks): Promise<void> {
  await hooks.afterBoot?.(py, options);
}

/** The document calls: each document's bytes reach Python once, and what Python holds of them is released after. */
function documentCalls(
  need: () => Started,
  documentSource: ReturnType<typeof documentSources>,
): Pick<ReplWorkerApi, "loadDocuments" | "addDocument" | "removeDocument" | "setContextText"> {
  return {
    async loadDocuments(docs: ContextDocumentInput[], shape: ContextShape): Promise<string> {
      const { py, runtime } = need();
      const sources = await Promise.all(docs.map((d) => documentSource(py, d)));
      const pyNames = py.toPy(docs.map((d) => d.name));
      const pySources = py.toPy(
        sources.map((s) => s.value),
        { depth: 1 },
      );
      const pyKinds = py.toPy(docs.map(kindOf));
      try {
        return runtime.loadDocuments(pyNames, pySources, shape, pyKinds);
      } finally {
        (pyNames as { destroy?: () => void }).destroy?.();
        (pySources as { destroy?: () => void }).destroy?.();
        (pyKinds as { destroy?: () => void }).destroy?.();
        for (const s of sources) s.release();
      }
    },

    async addDocument(doc: ContextDocumentInput): Promise<string> {
      const { py, runtime } = need();
      const source = await documentSource(py, doc);
      try {
        return runtime.addDocument(doc.name, source.value, kindOf(doc));
      } finally {
        source.release();
      }
    },

    async removeDocument(name: string): Promise<string> {
      return need().runtime.removeDocument(name);
    },

    async setContextText(text: string): Promise<string> {
      return need().runtime.setContext(text);
    },
  };
}

/** What the worker's calls share: Python once started, the private port, and how many cells it took. */
interface WorkerState {
  started: Started | undefined;
  pulse: Pulse | null;
  /**
   * Python's name for each cell (run_cell, finish_cell): the worker's own count, not the host's
   * id, which is optional and the host's to reuse, so no two cells under way share one.
   */
  cellsTaken: number;
}

/**
 * A cell's start and result are said here, on the private port, and never by Python: model code
 * could otherwise post a result of its own ahead of the real one, or fake or silence a signal of
 * its end (issue 32). The start goes out as the call is taken (a worker that work left behind
 * holds never takes it); the result is what Python's call returned, out before the Comlink reply.
 * Python's run_cell is a plain call, so its return reaches this code before any task the cell
 * left queued (a timer, a message handler) runs: such work can wedge the worker only after the
 * result is out, where the host's heartbeat after the cell finds it. (Under JSPI the return
 * comes as a promise, and a microtask the cell queued runs first: a wedge there is found at the
 * cell's time limit, as one a cell awaiting something leaves.)
 */
async function runOneCell(
  state: WorkerState,
  runtime: PythonRuntime,
  hooks: ReplWorkerHooks,
  cell: { code: string; outputCap: number; id: number },
) {
  state.pulse?.cellStarted(cell.id);
  const slot = ++state.cellsTaken;
  try {
    // No `await` on a plain call's value: even that would let a queued microtask run first.
    let raw = callCell(runtime.runCell, [cell.code, cell.outputCap, slot]);
    if (raw instanceof Promise) raw = await raw;
    if (raw === undefined) raw = await callCell(runtime.finishCell, [slot]);
    const result = typeof raw === "string" ? capForHost(raw, cell.outputCap) : droppedResult(-1);
    state.pulse?.cellFinished(cell.id, result);
    return result;
  } finally {
    hooks.afterCell?.();
  }
}

/**
 * callPromising where JSPI is: it can only suspend a stack entered through a promising call (a
 * sub-call waits so). A plain call otherwise, which returns at once for a plain function.
 */
function callCell(fn: PythonRuntime["runCell"], args: unknown[]): unknown {
  return runtimeHasJspi() ? fn.callPromising(...args) : fn(...args);
}

/** The kind Python gets with a document (the host checked it against the format registry); plain text without one. */
function kindOf(doc: ContextDocumentInput): string {
  return typeof doc.kind === "string" ? doc.kind : "text";
}

export function createReplWorker(hooks: ReplWorkerHooks): ReplWorkerApi {
  const state: WorkerState = { started: undefined, pulse: null, cellsTaken: 0 };
  const need = (): Started => {
    if (!state.started) throw new Error("The Python REPL is not started yet. Wait for it to finish loading.");
    return state.started;
  };
  const bridgeState: BridgeState = { python: () => need().py };

  return {
    async boot(options: ReplBootOptions): Promise<ReplBootInfo> {
      const t0 = performance.now();
      const host = connectHost(options, hooks.interruptBuffer, bridgeState);
      const { py, report } = await startPython(options, hooks, host.module);
      const opened = openRuntime(py, options);
      state.started = { py, runtime: opened.runtime };
      state.pulse = opened.pulse;
      await raiseWalls(py, options, hooks);
      return { syncMode: host.mode, pythonVersion: opened.runtime.pythonVersion, bootMs: performance.now() - t0, snapshot: report };
    },

    ...documentCalls(need, documentSources(hooks.mountHostFile)),

    async runCell(code: string, outputCap: number, cellId = 0): Promise<string> {
      return runOneCell(state, need().runtime, hooks, { code, outputCap, id: cellId });
    },

    async beginQuestion(historyJson: string): Promise<void> {
      need().runtime.beginQuestion(historyJson);
    },

    async resetNamespace(): Promise<void> {
      need().runtime.resetNamespace();
    },

    async sourcePassages(rangesJson: string): Promise<string> {
      return need().runtime.sourcePassages(rangesJson);
    },

    // The host's own questions (syntax, layout, read, rank, configure, place, lines): a call of
    // its own, not a cell, so no output cap, evidence recording or locals snapshot applies.
    async probe(requestJson: string): Promise<string> {
      return need().runtime.probe(String(requestJson));
    },

    async stats() {
      const heap = (need().py as unknown as { _module?: { HEAPU8?: Uint8Array } })._module?.HEAPU8;
      return { wasmHeapBytes: heap?.buffer.byteLength ?? 0 };
    },
  };
}
