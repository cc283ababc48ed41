// The script of the sandboxed frame (src/repl/sandbox-frame.ts puts its source into the frame's
// srcdoc, so it must use nothing but the frame's own globals: no imports, no outer variables).
// It starts and ends Python workers for the page, hands each the files and compiled
// WebAssembly module the page sent once, relays Stop into a worker's interrupt buffer, and
// answers the page's pings: a frame whose process crashed (out of memory) stops answering.
import type { FrameToPage, PageToFrame, SandboxWorkerSetup } from "./messages.ts";

export function sandboxFrameMain(): void {
  interface Files {
    worker: string;
    setup: Omit<SandboxWorkerSetup, "port" | "interruptBuffer">;
  }
  let files: Files | null = null;
  const workers = new Map<number, { worker: Worker; interrupt: Uint8Array | null }>();

  const connect = (event: MessageEvent) => {
    const control = event.ports[0];
    if (event.source !== parent || !control) return;
    removeEventListener("message", connect);
    const send = (message: FrameToPage) => control.postMessage(message);
    control.onmessage = (m: MessageEvent) => void handle(m.data as PageToFrame, send);
  };
  addEventListener("message", connect);

  async function handle(message: PageToFrame, send: (m: FrameToPage) => void): Promise<void> {
    switch (message.kind) {
      case "ping":
        return send({ kind: "pong", n: message.n });
      case "init":
        try {
          const { assets } = message;
          const url = (blob: Blob, type: string) => URL.createObjectURL(blob.slice(0, blob.size, type));
          const wasmModule = await WebAssembly.compileStreaming(
            new Response(assets.wasm, { headers: { "Content-Type": "application/wasm" } }),
          );
          files = {
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
          return send({ kind: "ready" });
        } catch (err) {
          return send({ kind: "failed", message: String(err) });
        }
      case "start": {
        if (!files) return send({ kind: "worker-error", id: message.id, message: "the sandbox was not initialised" });
        const worker = new Worker(files.worker, { name: "python-repl" });
        const id = message.id;
        worker.addEventListener("error", (event) => {
          event.preventDefault();
          send({ kind: "worker-error", id, message: event.message || "the Python worker script failed" });
        });
        // Only a cross-origin-isolated frame can share memory with its workers; without it, Stop ends the worker.
        const buffer = crossOriginIsolated ? new SharedArrayBuffer(1) : undefined;
        workers.set(id, { worker, interrupt: buffer ? new Uint8Array(buffer) : null });
        const setup: SandboxWorkerSetup = { ...files.setup, port: message.port, ...(buffer ? { interruptBuffer: buffer } : {}) };
        worker.postMessage(setup, [message.port]);
        return;
      }
      case "interrupt": {
        const view = workers.get(message.id)?.interrupt;
        if (view) view[0] = 2;
        return;
      }
      case "terminate":
        workers.get(message.id)?.worker.terminate();
        workers.delete(message.id);
        return;
    }
  }
}
