// REPL workers in Node: used by the CLI, the Node tests and the benchmarks. By default the worker
// runs inside a sandbox process (node-sandbox.ts, src/node/python-sandbox.mjs): model-written
// code reaches nothing of the host. A worker thread in this process (`sandbox: false`) is for
// tests of the REPL's own mechanics, whose code is ours.
import { Worker } from "node:worker_threads";
import * as Comlink from "comlink/dist/esm/comlink.mjs";
import nodeEndpoint from "comlink/dist/esm/node-adapter.mjs";
import type { ReplWorkerApi, SnapshotSetting } from "./protocol.ts";
import type { ReplTransport, ReplTransportFactory } from "./types.ts";
import { ReplClient } from "./client.ts";
import type { ReplClientOptions } from "./types.ts";
import { nodeSandboxTransportFactory, type SandboxWallSetting } from "./node-sandbox.ts";

/** Plain JavaScript: it runs the worker from its cached bundle, or through tsx. */
const workerUrl = new URL("../../workers/node/repl-worker.node.mjs", import.meta.url);

export interface NodeReplOptions extends ReplClientOptions {
  /**
   * Directory for the Python memory snapshot (made on the first start, restored on later ones;
   * about 0.5 s instead of 5 s). Absent or null: no snapshot, Python boots from scratch each time.
   */
  snapshotDir?: string | null;
  /** Make a new snapshot even if a good one is stored (the first start only). */
  rebuildSnapshot?: boolean;
  /** Host files the REPL will be given by path (the sandbox may read these, and nothing else of the host). */
  documents?: readonly string[];
  /**
   * The sandbox process and its walls (default: both walls). False runs the worker as a thread of
   * this process: only for tests of the REPL's own mechanics, never for model-written code.
   */
  sandbox?: SandboxWallSetting | false;
}

/** A worker thread of this process (no sandbox process): see NodeReplOptions.sandbox. */
function nodeThreadTransportFactory(snapshotDir: string | null = null, rebuild = false): ReplTransportFactory {
  let snapshot: SnapshotSetting = snapshotDir ? { kind: "directory", path: snapshotDir, ...(rebuild ? { rebuild } : {}) } : { kind: "off" };
  return () => {
    const transport = { ...nodeThreadTransport(), bootOptions: { snapshot } };
    // A worker rebuilt after a crash restores what the first start made.
    if (snapshot.kind === "directory") snapshot = { kind: "directory", path: snapshot.path };
    return transport;
  };
}

function nodeThreadTransport(): ReplTransport {
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
}

export function createNodeRepl(options: NodeReplOptions = {}): ReplClient {
  const { snapshotDir = null, rebuildSnapshot = false, documents = [], sandbox = { outer: true, inner: true }, ...clientOptions } = options;
  const factory =
    sandbox === false
      ? nodeThreadTransportFactory(snapshotDir, rebuildSnapshot)
      : nodeSandboxTransportFactory({ snapshotDir, rebuild: rebuildSnapshot, documents, walls: sandbox });
  return new ReplClient(factory, clientOptions);
}
