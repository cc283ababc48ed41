// The main thread of the CLI's Python sandbox process (src/node/python-sandbox.mjs starts it under
// Node's permission model, with no environment and no string compilation). The process's first
// module (repl-sandbox.node.mjs) has started the REPL worker thread; this relays between it and
// the parent over the IPC channel: the API calls, the sub-call channel, the heartbeat port, Stop,
// and the cache writes this process may not make itself. Shared memory cannot cross a process
// boundary, so the interrupt buffer and the blocking sub-call buffer are this process's own:
// Stop arrives as a message and is written here, a sub-call's reply likewise.
//
// Model code runs in the worker thread, behind its own lockdown (lockdown.node.ts); nothing here
// is reachable from it but the messages the worker's own JavaScript posts on the ports below.
import type { Worker } from "node:worker_threads";
import * as Comlink from "comlink/dist/esm/comlink.mjs";
import nodeEndpoint from "comlink/dist/esm/node-adapter.mjs";
import {
  SAB_DEFAULT_BYTES,
  SAB_HEADER_BYTES,
  writeBlockingReply,
  type ReplBootInfo,
  type ReplWorkerApi,
  type SyncMode,
} from "../../src/repl/protocol.ts";
import type {
  CacheWriteReply,
  CacheWriteRequest,
  DocumentBytes,
  SubcallMessage,
  ParentToSandbox,
  SandboxBootOptions,
  SandboxToParent,
  SandboxWalls,
} from "../../src/repl/messages.ts";

const send = (message: SandboxToParent) => process.send?.(message);

/** The walls as this process sees them. */
function walls(): SandboxWalls {
  const permission = (process as { permission?: { has(scope: string, reference?: string): boolean } }).permission;
  let noStringCode = false;
  try {
    new Function("return 1");
  } catch {
    noStringCode = true;
  }
  return {
    permission: !!permission && !permission.has("fs.write") && !permission.has("child"),
    noStringCode,
    envVars: Object.keys(process.env).length,
  };
}

export interface RelayStart {
  /** The REPL worker thread, started by the process's first module (repl-sandbox.node.mjs). */
  worker: Worker;
  /** Its interrupt buffer. */
  interruptBuffer: SharedArrayBuffer;
  /** What the parent sent before the relay was loaded. */
  early: unknown[];
}

let worker: Worker;
let interrupt: Uint8Array;
let api: Comlink.Remote<ReplWorkerApi>;

/** Serves the parent: called once, by the process's first module. */
export function startRelay(start: RelayStart): void {
  worker = start.worker;
  interrupt = new Uint8Array(start.interruptBuffer);
  send({ kind: "walls", walls: walls() });
  worker.on("error", (err) => send({ kind: "worker-exit", reason: err.message }));
  worker.on("exit", (code) => {
    send({ kind: "worker-exit", reason: `worker exited with code ${code}` });
    process.disconnect?.();
    process.exitCode = 1;
  });
  api = Comlink.wrap<ReplWorkerApi>(nodeEndpoint(worker));
  process.on("message", (message: ParentToSandbox) => void handle(message));
  for (const message of start.early) void handle(message as ParentToSandbox);
}

/** The worker's ports, opened by the boot call. */
let host: MessagePort | null = null;
let ping: MessagePort | null = null;
let cache: MessagePort | null = null;
let sabBuffer: SharedArrayBuffer | null = null;
let syncMode: SyncMode | null = null;

async function handle(message: ParentToSandbox): Promise<void> {
  switch (message.kind) {
    case "call":
      return answer(message.id, () => call(message.method, message.args));
    case "host":
      return relaySubcallReply(message.message as SubcallMessage);
    case "ping":
      return ping?.postMessage(message.message);
    case "interrupt":
      interrupt[0] = 2;
      return;
    case "cache-done":
      return cache?.postMessage({
        id: message.id,
        ...(message.error !== undefined ? { error: message.error } : {}),
      } satisfies CacheWriteReply);
  }
}

async function answer(id: number, work: () => Promise<unknown>): Promise<void> {
  try {
    send({ kind: "result", id, value: await work() });
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    send({ kind: "error", id, name: e.name, message: e.message });
  }
}

/** A worker call; boot gets this process's ports and buffers, documents sent as bytes become Blobs again. */
async function call(method: string, args: unknown[]): Promise<unknown> {
  if (method === "boot") return boot(args[0] as SandboxBootOptions);
  const fn = (api as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method];
  if (typeof fn !== "function") throw new Error(`unknown REPL call ${method}`);
  return fn(...args.map(asWorkerArgument));
}

/** Blobs cannot cross the IPC channel; the parent sends their bytes (see src/repl/node-sandbox.ts). */
function asWorkerArgument(arg: unknown): unknown {
  if (Array.isArray(arg)) return arg.map(asWorkerArgument);
  const doc = arg as { [K in keyof DocumentBytes]?: unknown };
  if (doc && typeof doc.name === "string" && doc.bytes instanceof Uint8Array)
    return {
      name: doc.name,
      data: new Blob([doc.bytes as Uint8Array<ArrayBuffer>]),
      ...(typeof doc.kind === "string" ? { kind: doc.kind } : {}),
    };
  return arg;
}

async function boot(options: SandboxBootOptions): Promise<ReplBootInfo> {
  const hostChannel = new MessageChannel();
  const pingChannel = new MessageChannel();
  host = hostChannel.port1;
  ping = pingChannel.port1;
  host.onmessage = (event: MessageEvent) => send({ kind: "host", message: event.data });
  ping.onmessage = (event: MessageEvent) => send({ kind: "ping", message: event.data });
  sabBuffer = new SharedArrayBuffer(SAB_HEADER_BYTES + SAB_DEFAULT_BYTES);
  const transfer: Transferable[] = [hostChannel.port2, pingChannel.port2];
  let snapshot = options.snapshot;
  if (snapshot?.kind === "directory") {
    // This process can read the cache directory but not write it: writes go to the parent.
    const cacheChannel = new MessageChannel();
    cache = cacheChannel.port1;
    cache.onmessage = (event: MessageEvent) => {
      // Passed on unchecked: the parent trusts nothing from this process and checks it (isCacheWrite).
      const { id, write } = event.data as CacheWriteRequest;
      send({ kind: "cache", id, write });
    };
    snapshot = { ...snapshot, writes: cacheChannel.port2 };
    transfer.push(cacheChannel.port2);
  }
  const full = {
    ...options,
    ...(snapshot ? { snapshot } : {}),
    hostPort: hostChannel.port2,
    pingPort: pingChannel.port2,
    sabBuffer,
  };
  const info = await api.boot(Comlink.transfer(full, transfer));
  syncMode = info.syncMode;
  // Python has started: nothing more may be written to the cache directory.
  cache?.close();
  cache = null;
  return info;
}

function relaySubcallReply(message: SubcallMessage): void {
  if (message?.type !== "reply") return;
  if (syncMode === "sab" && sabBuffer) writeBlockingReply(sabBuffer, String(message.reply));
  else host?.postMessage(message);
}
