// REPL workers as Node worker threads: used by the CLI, the Node tests and the benchmarks.
import { Worker } from "node:worker_threads";
import * as Comlink from "comlink/dist/esm/comlink.mjs";
import nodeEndpoint from "comlink/dist/esm/node-adapter.mjs";
import { takePrestartedReplWorker } from "../node/repl-worker-prestart.mjs";
import type { ReplWorkerApi, SnapshotSetting } from "./protocol.ts";
import type { ReplTransport, ReplTransportFactory } from "./types.ts";
import { ReplClient } from "./client.ts";
import type { ReplClientOptions } from "./types.ts";

/** Plain JavaScript: it runs the worker from its cached bundle, or through tsx. */
const workerUrl = new URL("../../workers/repl.node-worker.mjs", import.meta.url);

export interface NodeReplOptions extends ReplClientOptions {
  /**
   * Directory for the Python memory snapshot (made on the first start, restored on later ones;
   * about 0.5 s instead of 5 s). Absent or null: no snapshot, Python boots from scratch each time.
   */
  snapshotDir?: string | null;
  /** Make a new snapshot even if a good one is stored (the first start only). */
  rebuildSnapshot?: boolean;
}

export function nodeReplTransportFactory(snapshotDir: string | null = null, rebuild = false): ReplTransportFactory {
  let snapshot: SnapshotSetting = snapshotDir ? { kind: "directory", path: snapshotDir, ...(rebuild ? { rebuild } : {}) } : { kind: "off" };
  return () => {
    const transport = { ...nodeReplTransport(), bootOptions: { snapshot } };
    // A worker rebuilt after a crash restores what the first start made.
    if (snapshot.kind === "directory") snapshot = { kind: "directory", path: snapshot.path };
    return transport;
  };
}

export const nodeReplTransport: ReplTransportFactory = (): ReplTransport => {
  // The CLI starts the first worker before its modules load (bin/rlm.mjs); later ones start here.
  const worker = takePrestartedReplWorker(workerUrl) ?? new Worker(workerUrl);
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

export function createNodeRepl(options: NodeReplOptions = {}): ReplClient {
  const { snapshotDir = null, rebuildSnapshot = false, ...clientOptions } = options;
  return new ReplClient(nodeReplTransportFactory(snapshotDir, rebuildSnapshot), clientOptions);
}
