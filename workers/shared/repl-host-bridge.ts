// How Python reaches the host: the first of the worker's start-up phases (repl-runtime.ts). It
// chooses how a blocking sub-call waits (JSPI, a SharedArrayBuffer, or the service worker's
// relay), opens the sub-call channel, and builds the `_rlm_host` module Python imports
// (workers/python/rlm_runtime/host.py), before Python starts: a snapshot stores the module by
// name and a restore plugs this one in.
import type { PyodideInterface } from "pyodide";
import {
  SAB_HEADER_BYTES,
  SAB_STATE_IDLE,
  SAB_STATE_PENDING,
  SAB_STATE_READY,
  SAB_STATE_TOO_LARGE,
  type ReplBootOptions,
  type SyncMode,
} from "../../src/repl/protocol.ts";
import type { SubcallMessage } from "../../src/repl/messages.ts";

/** The same test Pyodide makes: the new (Suspending) or the old (Suspender) JSPI API. */
export function runtimeHasJspi(): boolean {
  return "Suspending" in WebAssembly || "Suspender" in WebAssembly;
}

/** What the host module reads of the worker as it runs: Python once started. */
export interface BridgeState {
  python(): PyodideInterface;
}

export interface HostBridge {
  mode: SyncMode;
  /** The `_rlm_host` module (see workers/python/rlm_runtime/host.py for what Python calls). */
  module: object;
}

/** Phase 1: how Python reaches the host, ready before Python starts. */
export function connectHost(options: ReplBootOptions, ownInterruptBuffer: SharedArrayBuffer | undefined, state: BridgeState): HostBridge {
  const mode = chooseSyncMode(options);
  const channel = hostChannel(options.hostPort, options.sabBuffer, state);
  const { call } = channel;
  const callBlocking = mode === "service-worker" && options.subcallUrl ? relayedCall(options.subcallUrl) : channel.callBlocking;
  // A private SharedArrayBuffer gives Atomics.wait something to wait on; without one
  // (a page that is not cross-origin isolated) a short busy wait does the same job.
  const napCell = typeof SharedArrayBuffer === "function" ? new Int32Array(new SharedArrayBuffer(4)) : null;
  const interruptSource = options.interruptBuffer ?? ownInterruptBuffer;
  const interruptBuffer = interruptSource ? new Uint8Array(interruptSource) : undefined;
  const module = {
    mode,
    sleep_slice: (ms: number) => {
      if (napCell) Atomics.wait(napCell, 0, 0, ms);
      else for (const end = performance.now() + ms; performance.now() < end;);
      state.python().checkInterrupt();
    },
    call: (requestJson: string) => call(String(requestJson)),
    // Python arms the interrupt buffer while a cell's own code runs, and only then (see
    // interrupts in workers/python/rlm_runtime/host.py).
    // A buffer of the worker's own (the sandboxed frame's) cannot be cleared by the host before
    // a cell: clear it here. A Stop sent just before is not lost: the host repeats it.
    interrupts: (on: boolean) => {
      if (on && interruptBuffer && !options.interruptBuffer) interruptBuffer[0] = 0;
      state.python().setInterruptBuffer((on && interruptBuffer) as Uint8Array);
    },
    call_blocking: (requestJson: string) => {
      if (!callBlocking) throw new Error("no blocking channel");
      return callBlocking(String(requestJson));
    },
  };
  return { mode, module };
}

/** JSPI where the engine can suspend WebAssembly, else the first blocking channel the host gave. */
function chooseSyncMode(options: ReplBootOptions): SyncMode {
  const mode: SyncMode =
    options.syncMode !== "auto" ? options.syncMode : runtimeHasJspi() ? "jspi" : options.sabBuffer ? "sab" : "service-worker";
  if (mode === "jspi" && !runtimeHasJspi()) {
    throw new Error("This JavaScript engine cannot suspend WebAssembly (no JSPI); use the SharedArrayBuffer mode.");
  }
  if (mode === "sab" && !options.sabBuffer) {
    throw new Error("The SharedArrayBuffer sub-call channel is missing; the page must be cross-origin isolated.");
  }
  if (mode === "service-worker" && !options.subcallUrl) {
    throw new Error(
      "This browser has neither JSPI nor SharedArrayBuffer, and no service worker controls the page to relay sub-calls " +
        "(serve the app over http://localhost or https, and reload once it is installed)",
    );
  }
  return mode;
}

/** Sub-calls travel on one MessagePort with a two-message protocol (see SubcallMessage). */
function hostChannel(port: MessagePort, sabBuffer: SharedArrayBuffer | undefined, state: BridgeState) {
  let nextId = 0;
  const pending = new Map<number, (reply: string) => void>();
  port.onmessage = (event: MessageEvent) => {
    const m = event.data as SubcallMessage;
    if (m?.type !== "reply") return;
    pending.get(m.id)?.(String(m.reply));
    pending.delete(m.id);
  };
  const send = (request: string): number => {
    const id = ++nextId;
    port.postMessage({ type: "request", id, request } satisfies SubcallMessage);
    return id;
  };
  const call = (request: string): Promise<string> =>
    new Promise((resolve) => {
      pending.set(send(request), resolve);
    });
  let callBlocking: ((request: string) => string) | undefined;
  if (sabBuffer) {
    const ctrl = new Int32Array(sabBuffer, 0, 2);
    const data = new Uint8Array(sabBuffer, SAB_HEADER_BYTES);
    callBlocking = (request: string): string => {
      Atomics.store(ctrl, 0, SAB_STATE_PENDING);
      send(request);
      // Wake up every 100 ms to let Stop raise KeyboardInterrupt while the host is busy.
      while (Atomics.load(ctrl, 0) === SAB_STATE_PENDING) {
        Atomics.wait(ctrl, 0, SAB_STATE_PENDING, 100);
        state.python().checkInterrupt();
      }
      const status = Atomics.load(ctrl, 0);
      const length = Atomics.load(ctrl, 1);
      // slice(): TextDecoder refuses views on a SharedArrayBuffer.
      const text = new TextDecoder().decode(data.slice(0, length));
      Atomics.store(ctrl, 0, SAB_STATE_IDLE);
      if (status === SAB_STATE_TOO_LARGE) {
        return JSON.stringify({ results: [] }); // the Python side turns a short list into an Error: string
      }
      if (status !== SAB_STATE_READY) throw new Error("sub-call channel in an unexpected state");
      return text;
    };
  }
  return { call, callBlocking };
}

/**
 * Blocking sub-calls for engines with neither JSPI nor a usable SharedArrayBuffer: a
 * synchronous POST that the service worker relays to the page and answers when the page does.
 */
function relayedCall(url: string): (request: string) => string {
  // Taken now: lockDown() removes the global after boot, and Python reaches only this closure,
  // which can post to this one same-origin URL and nowhere else.
  const Request = XMLHttpRequest;
  return (request: string): string => {
    const xhr = new Request();
    xhr.open("POST", url, false);
    xhr.setRequestHeader("Content-Type", "text/plain;charset=UTF-8");
    xhr.send(request);
    if (xhr.status !== 200) {
      throw new Error(`the service worker did not relay the sub-call (HTTP ${xhr.status}); reload the page`);
    }
    return xhr.responseText;
  };
}
