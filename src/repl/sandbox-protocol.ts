// Messages between the page and the sandboxed frame that hosts Python workers in Chromium
// (src/repl/sandbox-frame.ts), and what the frame hands each worker (workers/repl-sandboxed.worker.ts).

/** Everything a worker needs, fetched by the page (the frame has an opaque origin and no network). */
export interface SandboxAssets {
  workerScript: Blob;
  pyodideAsm: Blob;
  stdlib: Blob;
  wasm: Blob;
  lockFileContents: string;
}

export type PageToFrame =
  | { kind: "init"; assets: SandboxAssets }
  | { kind: "start"; id: number; port: MessagePort }
  | { kind: "interrupt"; id: number }
  | { kind: "terminate"; id: number }
  | { kind: "ping"; n: number };

export type FrameToPage =
  | { kind: "ready" }
  | { kind: "failed"; message: string }
  | { kind: "worker-error"; id: number; message: string }
  | { kind: "pong"; n: number };

/** The first (and only) message a sandboxed worker gets from the frame. */
export interface SandboxWorkerSetup {
  /** Comlink's endpoint: the page talks to the worker over it, through the process boundary. */
  port: MessagePort;
  /** Present when the frame is cross-origin isolated: Stop interrupts Python instead of ending the worker. */
  interruptBuffer?: SharedArrayBuffer;
  wasmModule?: WebAssembly.Module;
  files: { asmUrl: string; stdlibUrl: string; lockFileContents: string };
}

/** Where the page finds the sandboxed worker's classic-script build (vite.config.ts makes it). */
export const SANDBOXED_WORKER_FILE = "repl-sandboxed.worker.js";

/** Why every worker of a frame that stopped answering ended: its process crashed. */
export const SANDBOX_CRASHED = "the Python sandbox's process crashed, most likely out of memory (the page itself was not affected)";

/**
 * Why a frame that never answered (or could not prepare Python) ended its workers. Not a crash:
 * something in this browser keeps the frame from running, so the page stops using it.
 */
export const SANDBOX_DID_NOT_START =
  "the Python sandbox's frame did not start in this browser, so Python will run in the page's own worker: press Restart Python";
