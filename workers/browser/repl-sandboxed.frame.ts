// The script of the sandboxed frame, beside the worker it starts (repl-sandboxed.worker.ts; Chromium).
// The page's side, src/repl/sandbox-frame.ts, puts frameScript() into the frame's srcdoc, which is
// why it is the one module of workers/ that src/repl may import (eslint.config.js). It starts and
// ends Python workers for the page, hands each the files and compiled WebAssembly module the page
// sent once, relays Stop into a worker's interrupt buffer, and answers the page's pings: a frame
// whose process crashed (out of memory) stops answering.
// The frame runs the source text of the functions below, so they use nothing but the frame's own
// globals and each other: no imports but types, no module constants, no helpers a bundler would share.
import type { FrameToPage, PageToFrame, SandboxAssets, SandboxWorkerSetup } from "../../src/repl/messages.ts";

/** What the page sent once, ready for each worker. */
interface FrameFiles {
  worker: string;
  setup: Omit<SandboxWorkerSetup, "port" | "interruptBuffer">;
}

/** Everything the frame holds: the files once sent, and its workers by the page's ids. */
interface FrameState {
  files: FrameFiles | null;
  workers: Map<number, { worker: Worker; interrupt: Uint8Array | null }>;
}

type Send = (message: FrameToPage) => void;

/** The frame's entry: waits for the page's control port, then answers on it. */
function sandboxFrameMain(): void {
  const frame: FrameState = { files: null, workers: new Map() };
  const connect = (event: MessageEvent) => {
    const control = event.ports[0];
    if (event.source !== parent || !control) return;
    removeEventListener("message", connect);
    const send: Send = (message) => control.postMessage(message);
    control.onmessage = (m: MessageEvent) => void handleFrameMessage(frame, m.data as PageToFrame, send);
  };
  addEventListener("message", connect);
}

async function handleFrameMessage(frame: FrameState, message: PageToFrame, send: Send): Promise<void> {
  switch (message.kind) {
    case "ping":
      return send({ kind: "pong", n: message.n });
    case "init":
      try {
        frame.files = await prepareFrameFiles(message.assets);
        return send({ kind: "ready" });
      } catch (err) {
        return send({ kind: "failed", message: String(err) });
      }
    case "start":
      return startFrameWorker(frame, message, send);
    case "interrupt": {
      const view = frame.workers.get(message.id)?.interrupt;
      if (view) view[0] = 2;
      return;
    }
    case "terminate":
      frame.workers.get(message.id)?.worker.terminate();
      frame.workers.delete(message.id);
      return;
  }
}

/** The page's assets as blob: URLs, and Pyodide's WebAssembly compiled once for every worker. */
async function prepareFrameFiles(assets: SandboxAssets): Promise<FrameFiles> {
  const url = (blob: Blob, type: string) => URL.createObjectURL(blob.slice(0, blob.size, type));
  const wasmModule = await WebAssembly.compileStreaming(new Response(assets.wasm, { headers: { "Content-Type": "application/wasm" } }));
  return {
    worker: url(assets.workerScript, "text/javascript"),
    setup: {
      wasmModule,
      files: {
        asmUrl: url(assets.pyodideAsm, "text/javascript"),
        stdlibUrl: url(assets.stdlib, "application/zip"),
        lockFileContents: assets.lockFileContents,
      },
    },
  };
}

function startFrameWorker(frame: FrameState, message: Extract<PageToFrame, { kind: "start" }>, send: Send): void {
  const id = message.id;
  if (!frame.files) return send({ kind: "worker-error", id, message: "the sandbox was not initialised" });
  const worker = new Worker(frame.files.worker, { name: "python-repl" });
  worker.addEventListener("error", (event) => {
    event.preventDefault();
    send({ kind: "worker-error", id, message: event.message || "the Python worker script failed" });
  });
  // Only a cross-origin-isolated frame can share memory with its workers; without it, Stop ends the worker.
  const buffer = crossOriginIsolated ? new SharedArrayBuffer(1) : undefined;
  frame.workers.set(id, { worker, interrupt: buffer ? new Uint8Array(buffer) : null });
  const setup: SandboxWorkerSetup = { ...frame.files.setup, port: message.port, ...(buffer ? { interruptBuffer: buffer } : {}) };
  worker.postMessage(setup, [message.port]);
}

/**
 * The frame's script: the source text of every function above, then the call that starts it.
 * By `.name`, not by the names written here: a production build renames them (consistently,
 * in their bodies too).
 */
export function frameScript(): string {
  const parts = [sandboxFrameMain, handleFrameMessage, prepareFrameFiles, startFrameWorker];
  return `${parts.map((f) => f.toString()).join("\n")}\n${sandboxFrameMain.name}();`;
}
