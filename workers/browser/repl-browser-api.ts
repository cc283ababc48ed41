// The REPL's API in a browser worker, for both ways the page starts one: a module worker of the
// page's own origin (repl.worker.ts), or a classic worker inside the sandboxed frame
// (repl-sandboxed.worker.ts, Chromium). Model-written code runs here, so after Pyodide has
// loaded, the worker drops every way to reach the network, storage or the page that it does
// not need, and every way to compile JavaScript from a string. The worker's
// Content-Security-Policy (a header set by the server, see vite.config.ts, or the sandboxed
// frame's own policy) is the wall the browser enforces; lockDown() is the second wall, for hosts
// that fail to send that header (the sandbox e2e test runs the attacks against each wall alone).
import { guardTimers, lockStackTraceHooks, removeGlobals, removeStringCompilation } from "../shared/lockdown.ts";
import { createReplWorker, type ReplWorkerHooks } from "../shared/repl-runtime.ts";
import { DEFAULT_SNAPSHOT_CACHE, cacheStorageSnapshotStore } from "../../src/repl/snapshot-store.ts";
import { portSnapshotStore } from "./snapshot-store-port.ts";
import { RUNTIME_FILES } from "./runtime-package.browser.ts";
import type { ReplWorkerApi } from "../../src/repl/protocol.ts";

/** Globals that reach the network, other origins' data, storage or other contexts. */
const NETWORK_GLOBALS = [
  "fetch",
  "XMLHttpRequest",
  "WebSocket",
  "WebSocketStream",
  "EventSource",
  "WebTransport",
  "importScripts",
  "Worker",
  "SharedWorker",
  "BroadcastChannel",
  "caches",
  "indexedDB",
  "Request",
  // Load a URL named by the caller: a font file, a notification's icon and image.
  "FontFace",
  "fonts",
  "Notification",
  // The old FileSystem API: its TEMPORARY and PERSISTENT file systems outlive the worker and
  // are shared by every page of the origin, so one session could leave data for another.
  "webkitRequestFileSystemSync",
  "webkitResolveLocalFileSystemSyncURL",
  "webkitRequestFileSystem",
  "webkitResolveLocalFileSystemURL",
  "requestFileSystem",
  "requestFileSystemSync",
  // Cookies, where a worker can reach them.
  "cookieStore",
  // A worker that closes itself leaves every later call unanswered.
  "close",
  // Window-only today, listed in case a browser exposes them to workers later.
  "fetchLater",
] as const;

/**
 * Navigator members with the same reach: storageBuckets hands out indexedDB and caches, and
 * Web Locks are visible to every page and worker of the origin (a lock's name is a message).
 */
const NAVIGATOR_MEMBERS = ["sendBeacon", "serviceWorker", "storage", "storageBuckets", "locks"] as const;

/** Set by lockDown(): cancels what a cell left scheduled. */
let cellTimers: { cancel(): void } | null = null;

function lockDown(): void {
  removeGlobals(self, NETWORK_GLOBALS);
  const nav = (self as unknown as { navigator?: object }).navigator;
  if (nav) removeGlobals(nav, NAVIGATOR_MEMBERS);
  removeStringCompilation();
  lockStackTraceHooks();
  cellTimers = guardTimers([
    ["setTimeout", "clearTimeout"],
    ["setInterval", "clearInterval"],
  ]);
}

/** Hooks only the sandboxed frame's worker has: Pyodide's files and the interrupt buffer come from the frame. */
export type SandboxedWorkerHooks = Pick<ReplWorkerHooks, "pyodideFiles" | "interruptBuffer" | "wasmModule">;

export function browserReplWorker(sandboxed: SandboxedWorkerHooks = {}): ReplWorkerApi {
  return createReplWorker({
    runtimeFiles: RUNTIME_FILES,
    // Python snapshots live in Cache Storage: read, and written (the put may finish later), before
    // lockDown() takes `caches` away from everything that runs after it. A sandboxed worker has
    // no storage of its own (an opaque origin): the page keeps its snapshot, over a port.
    snapshotStore: (setting) => {
      if (setting?.kind === "off") return { off: "snapshots are off for this REPL" };
      if (setting?.kind === "directory") return { off: "a browser worker cannot keep snapshots in a directory" };
      if (setting?.kind === "port") return portSnapshotStore(setting.port);
      return cacheStorageSnapshotStore(setting?.kind === "cache-storage" ? setting.cacheName : DEFAULT_SNAPSHOT_CACHE);
    },
    afterBoot: () => lockDown(),
    afterCell: () => cellTimers?.cancel(),
    ...sandboxed,
  });
}
