// Starting Python: from a memory snapshot of "Pyodide + the runtime package" when a valid one is
// stored, else from scratch (and then a snapshot is made for next time). About 80 % of a bare
// start is Python bootstrapping itself; a restore skips all of it (see
// /work/shared/reference/pyodide-startup.md for the measurements behind each choice here).
//
// Pyodide's snapshot options are private (`_makeSnapshot`, `_loadSnapshot`,
// `_snapshotDeserializer`, `makeMemorySnapshot`): pinned pyodide, and tests/node/snapshot.test.ts
// restores, runs, interrupts and sub-calls after every upgrade.
import { loadPyodide, version as pyodideVersion, type PyodideInterface } from "pyodide";
import type { BootPhase, SnapshotBootReport } from "../../src/repl/protocol.ts";
import {
  PYODIDE_INITIAL_HEAP_BYTES,
  PYODIDE_SNAPSHOT_HEADER_MAX_BYTES,
  envelopeHeader,
  openEnvelope,
  runtimeText,
  snapshotKey,
} from "./snapshot-format.ts";
import { SnapshotRejected, type SnapshotStore } from "../../src/repl/snapshot-store.ts";
import { RUNTIME_PACKAGE, type RuntimeFile } from "./runtime-package.ts";
import { withSharedWasm, withWrapperCache, type SharedWasm } from "./shared-wasm.ts";

/** The name the host module goes into a snapshot under; a restore swaps in the new worker's own. */
const HOST_MODULE_NAME = "_rlm_host";

/** Pyodide's own files handed over instead of fetched from `indexURL` (see loadPyodide's options). */
export interface PyodideFiles {
  /** pyodide.asm.mjs's default export, imported by the caller. */
  createPyodideModule?: NonNullable<Parameters<typeof loadPyodide>[0]>["createPyodideModule"];
  stdLibURL?: string;
  lockFileContents?: string;
}

export interface PythonBootRequest {
  indexURL?: string;
  pyodideFiles?: PyodideFiles;
  /** The files of the runtime package (workers/python/rlm_runtime/), imported once; part of the snapshot. */
  runtimeFiles: readonly RuntimeFile[];
  /** The `_rlm_host` module the runtime imports: JavaScript, so never part of the heap itself. */
  hostModule: object;
  /** Where snapshots live; null when they are off (then `offNote` says why). */
  store: SnapshotStore | null;
  offNote?: string;
  /** Make and store a new snapshot even if a good one is stored. */
  rebuild?: boolean;
  /** pyodide.asm.wasm compiled by the page (browser), or by the worker thread as it started (Node). */
  wasmModule?: SharedWasm;
  onPhase?: (phase: BootPhase) => void;
  /** What Python's `js` module shows (loadPyodide's `jsglobals`); the real global object if absent. */
  jsglobals?: object;
}

export interface PythonBootResult {
  py: PyodideInterface;
  report: SnapshotBootReport;
}

type Clock = { enter(phase: BootPhase): void; phases: SnapshotBootReport["phases"] };

function phaseClock(onPhase?: (phase: BootPhase) => void): Clock {
  const phases: SnapshotBootReport["phases"] = [];
  let current: { phase: BootPhase; since: number } | null = null;
  return {
    phases,
    enter(phase) {
      const now = performance.now();
      if (current) phases.push({ phase: current.phase, ms: Math.round(now - current.since) });
      current = phase === "ready" ? null : { phase, since: now };
      onPhase?.(phase);
    },
  };
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err)).split("\n")[0]!;

export async function bootPython(request: PythonBootRequest): Promise<PythonBootResult> {
  const clock = phaseClock(request.onPhase);
  const { store } = request;
  const finish = (
    py: PyodideInterface,
    path: SnapshotBootReport["path"],
    notes: string[],
    stored?: SnapshotBootReport["stored"],
  ): PythonBootResult => {
    clock.enter("ready");
    const report: SnapshotBootReport = { path, phases: clock.phases };
    if (stored) report.stored = stored;
    if (notes.length) report.note = notes.join("; ");
    if (store) report.where = store.where;
    return { py, report };
  };
  if (!store) return finish(await plainBoot(request, clock), "plain", [request.offNote ?? "snapshots are off"]);

  const key = snapshotKey(pyodideVersion, runtimeText(request.runtimeFiles));
  const notes: string[] = [];
  if (request.rebuild) notes.push("asked to rebuild the snapshot");
  const restored = request.rebuild ? null : await restoreStored(request, store, key, clock, notes);
  if (restored) {
    const done = finish(restored.py, "restored", notes);
    done.report.verified = restored.verified;
    return done;
  }
  try {
    const made = await makeSnapshotAndRestore(request, store, key, clock, notes);
    return finish(made.py, "made-snapshot", notes, made.stored);
  } catch (err) {
    notes.push(`could not make a snapshot (${message(err)}), so Python started without one`);
  }
  return finish(await plainBoot(request, clock), "plain", notes);
}

async function restoreStored(
  request: PythonBootRequest,
  store: SnapshotStore,
  key: string,
  clock: Clock,
  notes: string[],
): Promise<{ py: PyodideInterface; verified: NonNullable<SnapshotBootReport["verified"]> } | null> {
  clock.enter("reading-snapshot");
  let found: Awaited<ReturnType<SnapshotStore["find"]>>;
  try {
    found = await store.find(key);
  } catch (err) {
    notes.push(`could not read the stored snapshot: ${message(err)}`);
    return null;
  }
  if (!found) {
    notes.push("no stored snapshot yet");
    return null;
  }
  clock.enter("restoring-snapshot");
  try {
    // Handed over as a pending promise: Pyodide imports its JS while the bytes are read and checked.
    // The payload checksum is skipped when the store vouches these bytes passed it before.
    const checkedBefore = Promise.resolve(found.checkedBefore).then(
      (v) => v === true,
      () => false,
    );
    const payload = found.bytes.then(async (stored) => openEnvelope(key, stored, { skipChecksum: await checkedBefore }));
    // A rejection is handled below, through loadPyodide; it must not count as unhandled before
    // Pyodide gets to await it (Node would end the worker thread).
    payload.catch(() => undefined);
    const py = await restore(request, payload);
    release(await payload);
    const vouched = await checkedBefore;
    if (!vouched) await found.markChecked?.().catch(() => undefined);
    return { py, verified: vouched ? "stamp" : "checksum" };
  } catch (err) {
    const why =
      err instanceof SnapshotRejected
        ? `the stored snapshot was rejected: ${err.message}`
        : `restoring the stored snapshot failed: ${message(err)}`;
    notes.push(`${why}; it was deleted and a new one made`);
    await store.remove(key);
    return null;
  }
}

async function makeSnapshotAndRestore(
  request: PythonBootRequest,
  store: SnapshotStore,
  key: string,
  clock: Clock,
  notes: string[],
): Promise<{ py: PyodideInterface; stored: NonNullable<SnapshotBootReport["stored"]> }> {
  clock.enter("loading-pyodide");
  const maker = await withSharedWasm(request.wasmModule, () =>
    withWrapperCache(() => loadPyodide({ ...indexOption(request), _makeSnapshot: true })),
  );
  clock.enter("installing-runtime");
  installRuntime(maker, request);
  clock.enter("making-snapshot");
  const bytes = maker.makeMemorySnapshot({
    serializer: (value: unknown) => {
      if (value === request.hostModule) return HOST_MODULE_NAME;
      throw new Error("the Python runtime holds a JavaScript object that cannot go into a snapshot");
    },
  });
  if (bytes.byteLength > PYODIDE_INITIAL_HEAP_BYTES + PYODIDE_SNAPSHOT_HEADER_MAX_BYTES) {
    throw new Error(`the heap grew to ${bytes.byteLength} bytes during start-up; a snapshot over 30 MiB cannot be restored (pyodide#6254)`);
  }
  // The instance that made the snapshot has a recording proxy for `js` (pyodide wraps jsglobals
  // for snapshotting), which breaks getters such as js.self.addEventListener ("Illegal
  // invocation"). Hand out a fresh interpreter restored from the bytes; this also proves they
  // restore before they are stored.
  clock.enter("restoring-snapshot");
  const py = await restore(request, bytes);
  const writing = store.write(key, envelopeHeader(key, bytes), bytes);
  release(bytes);
  if (!store.waitForWrites) {
    writing.catch((err: unknown) => console.warn(`Could not store the Python snapshot in ${store.where}:`, err));
    return { py, stored: "pending" };
  }
  try {
    await writing;
    return { py, stored: "yes" };
  } catch (err) {
    notes.push(`could not store the snapshot in ${store.where}: ${message(err)}`);
    return { py, stored: "failed" };
  }
}

async function plainBoot(request: PythonBootRequest, clock: Clock): Promise<PyodideInterface> {
  clock.enter("loading-pyodide");
  const py = await withSharedWasm(request.wasmModule, () => withWrapperCache(() => loadPyodide(indexOption(request))));
  clock.enter("installing-runtime");
  installRuntime(py, request);
  return py;
}

/** Where the package's files are written for the one import that installs it; removed after it. */
const INSTALL_DIR = "/tmp/rlm-runtime-install";

/**
 * Registers the host module, then imports the runtime package from files written for the purpose
 * and removed once it is in sys.modules: the file system is not part of a snapshot, so a restored
 * interpreter has the imported modules and no files either way, and both starts behave alike.
 */
function installRuntime(py: PyodideInterface, request: PythonBootRequest): void {
  py.registerJsModule(HOST_MODULE_NAME, request.hostModule);
  const fs = py.FS as unknown as {
    mkdirTree(path: string): void;
    writeFile(path: string, data: string): void;
    rmdir(path: string): void;
    unlink(path: string): void;
    readdir(path: string): string[];
    isDir(mode: number): boolean;
    stat(path: string): { mode: number };
  };
  for (const file of request.runtimeFiles) {
    const path = `${INSTALL_DIR}/${file.path}`;
    fs.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    fs.writeFile(path, file.source);
  }
  try {
    inScratch(
      py,
      `import sys\n` +
        `sys.path.insert(0, ${JSON.stringify(INSTALL_DIR)})\n` +
        `written, sys.dont_write_bytecode = sys.dont_write_bytecode, True\n` +
        `try:\n    import ${RUNTIME_PACKAGE}\n` +
        `finally:\n    sys.dont_write_bytecode = written\n    sys.path.remove(${JSON.stringify(INSTALL_DIR)})\n` +
        `    sys.path_importer_cache.pop(${JSON.stringify(INSTALL_DIR)}, None)`,
    );
  } finally {
    const remove = (path: string): void => {
      if (!fs.isDir(fs.stat(path).mode)) return fs.unlink(path);
      for (const name of fs.readdir(path)) if (name !== "." && name !== "..") remove(`${path}/${name}`);
      fs.rmdir(path);
    };
    remove(INSTALL_DIR);
  }
}

/** Runs `code` in a namespace of its own, so the interpreter's __main__ keeps nothing of it. */
function inScratch(py: PyodideInterface, code: string): void {
  const scratch = py.toPy({}) as { destroy(): void };
  try {
    py.runPython(code, { globals: scratch as never });
  } finally {
    scratch.destroy();
  }
}

async function restore(request: PythonBootRequest, snapshot: Uint8Array | Promise<Uint8Array>): Promise<PyodideInterface> {
  const py = await withSharedWasm(request.wasmModule, () =>
    withWrapperCache(() =>
      loadPyodide({
        ...indexOption(request),
        _loadSnapshot: snapshot,
        _snapshotDeserializer: (name: unknown) => {
          if (name === HOST_MODULE_NAME) return request.hostModule;
          throw new Error(`the snapshot refers to an unknown JavaScript object ${JSON.stringify(name)}`);
        },
      }),
    ),
  );
  // Pyodide keeps the option, and with it the 30 MiB of snapshot bytes, for the worker's life.
  delete (py as unknown as { _api: { config: Record<string, unknown> } })._api.config._loadSnapshot;
  startSession(py);
  return py;
}

/**
 * Every restore begins from the same heap, so anything random in it would repeat in every
 * session: reseed `random` (already imported by the stdlib at start-up) from os.urandom. The
 * str hash seed cannot be changed once strings exist, so hash randomisation is per snapshot (per
 * browser profile or per user cache), not per session: it only hardens dicts against
 * hash-flooding, and nothing here depends on it. Pyodide also puts '' on sys.path a second time.
 */
function startSession(py: PyodideInterface): void {
  // A scratch namespace: the runtime's own globals (its `sys`, its helpers) stay untouched.
  inScratch(
    py,
    "import sys\n" + "if 'random' in sys.modules: sys.modules['random'].seed()\n" + "if sys.path[:2] == ['', '']: del sys.path[0]",
  );
}

/**
 * Frees snapshot bytes now rather than at the next garbage collection, which an idle worker may
 * not run for a long time: measured in Chromium, each idle sandbox otherwise kept 30 MB more.
 * Pyodide has already copied them into its heap. (ArrayBuffer.prototype.transfer: Chromium 114+;
 * where it is missing, as in Node 20, the bytes wait for the collector.)
 */
function release(bytes: Uint8Array): void {
  const buffer = bytes.buffer as ArrayBuffer & { transfer?: (length: number) => ArrayBuffer; detached?: boolean };
  if (buffer instanceof ArrayBuffer && typeof buffer.transfer === "function" && !buffer.detached) buffer.transfer(0);
}

const indexOption = (request: PythonBootRequest) => ({
  ...(request.indexURL ? { indexURL: request.indexURL } : {}),
  ...(request.jsglobals ? { jsglobals: request.jsglobals } : {}),
  ...request.pyodideFiles,
});
