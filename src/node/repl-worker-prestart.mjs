// The REPL worker thread, started by `bin/rlm.mjs` before the CLI's own modules load. A Node
// worker takes ~75 ms to bootstrap its thread and load its bundle, and the CLI ~45 ms to load
// before it gets to create one: started first, the two overlap. The worker waits for its boot
// call (which carries the options: cache directory, sync mode) like any other, so nothing about
// the run is decided here. Plain JavaScript (bin/rlm.mjs runs it before any TypeScript), and the
// hand-over goes through a global symbol: the CLI bundle has its own copy of this module.
import { Worker } from "node:worker_threads";

const SLOT = Symbol.for("recursive-reader.prestarted-repl-worker");

/** Starts one REPL worker now; it does not keep the process alive until taken. */
export function prestartReplWorker(url) {
  if (globalThis[SLOT]) return;
  const worker = new Worker(url);
  worker.unref();
  // Until taken nobody listens: an error must not become an uncaught exception. The taker
  // attaches its own listeners, and a worker that already failed is not handed out.
  let failed = false;
  worker.once("error", () => (failed = true));
  worker.once("exit", () => (failed = true));
  globalThis[SLOT] = { href: url.href, worker, failed: () => failed };
}

/** The prestarted worker for this script, once, or null (none, another script, or it died). */
export function takePrestartedReplWorker(url) {
  const slot = globalThis[SLOT];
  if (!slot || slot.href !== url.href) return null;
  globalThis[SLOT] = undefined;
  if (slot.failed()) {
    void slot.worker.terminate();
    return null;
  }
  slot.worker.ref();
  return slot.worker;
}
