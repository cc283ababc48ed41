// The first module of the CLI's Python sandbox process (src/node/python-sandbox.mjs starts it). It
// starts the REPL worker thread at once, since that thread's start and Pyodide's WebAssembly
// compile are the longest part of a warm run, keeps whatever the parent says meanwhile, and only
// then loads the relay (repl-sandbox-entry.node.ts, bundled) that serves the parent. Plain
// JavaScript, so nothing is compiled before the worker is on its way.
import { Worker } from "node:worker_threads";

const [relayBundle, workerScript, workerBundle] = process.argv.slice(2);
if (!relayBundle || !workerScript || !process.send) throw new Error("the Python sandbox is started by rlm (src/node/python-sandbox.mjs)");

// Ctrl-C reaches the whole process group: the parent decides what Stop means, not the terminal.
process.on("SIGINT", () => undefined);
// The parent is gone (it exited, or was killed): nothing is left to serve.
process.on("disconnect", () => process.exit(0));
const early = [];
const keep = (message) => early.push(message);
process.on("message", keep);

// The worker's own interrupt buffer (it clears it as each cell starts): Stop is written here.
const interruptBuffer = new SharedArrayBuffer(1);
const worker = new Worker(new URL(workerScript), { workerData: { interruptBuffer, ...(workerBundle ? { bundle: workerBundle } : {}) } });

const { startRelay } = await import(relayBundle);
process.off("message", keep);
startRelay({ worker, interruptBuffer, early });
