// REPL workers as Node worker threads: used by the CLI, the Node tests and the benchmarks.
import { Worker } from "node:worker_threads";
import * as Comlink from "comlink/dist/esm/comlink.mjs";
import nodeEndpoint from "comlink/dist/esm/node-adapter.mjs";
import type { ReplWorkerApi } from "./protocol.ts";
import type { ReplTransport, ReplTransportFactory } from "./types.ts";
import { ReplClient } from "./client.ts";
import type { ReplClientOptions } from "./types.ts";

const workerUrl = new URL("../../workers/repl.node-worker.mjs", import.meta.url);

export const nodeReplTransport: ReplTransportFactory = (): ReplTransport => {
  const worker = new Worker(workerUrl);
  const api = Comlink.wrap<ReplWorkerApi>(nodeEndpoint(worker));
  const exitListeners: Array<(reason: string) => void> = [];
  let terminated = false;
  worker.on("exit", (code) => {
    if (!terminated) for (const l of exitListeners) l(`worker exited with code ${code}`);
  });
  worker.on("error", (err) => {
    if (!terminated) for (const l of exitListeners) l(err.message);
  });
  return {
    api,
    transfer: (value, transferables) => Comlink.transfer(value, transferables),
    terminate() {
      terminated = true;
      api[Comlink.releaseProxy]();
      void worker.terminate();
    },
    onExit(listener) {
      exitListeners.push(listener);
    },
  };
};

export function createNodeRepl(options: ReplClientOptions = {}): ReplClient {
  return new ReplClient(nodeReplTransport, options);
}
