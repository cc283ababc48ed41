// The REPL's API in a browser worker, for both ways the page starts one: a module worker of the
// page's own origin (repl.worker.ts), or a classic worker inside the sandboxed frame
// (repl-sandboxed.worker.ts, Chromium). Model-written code runs here, so after Pyodide has
// loaded, the worker drops every way to reach the network, storage or the page that it does
// not need, and every way to compile JavaScript from a string. The worker's
// Content-Security-Policy (a header set by the server, see vite.config.ts, or the sandboxed
// frame's own policy) is the wall the browser enforces; lockDown() is the second wall, for hosts
// that fail to send that header (the sandbox e2e test runs the attacks against each wall alone).
import pythonSource from "./python/rlm_runtime.py?raw";
import evidenceSource from "./python/rlm_evidence.py?raw";
import { createReplWorker, type ReplWorkerHooks } from "./repl-runtime.ts";
import { DEFAULT_SNAPSHOT_CACHE, cacheStorageSnapshotStore } from "./snapshot-store.ts";
import { portSnapshotStore } from "./snapshot-store-port.ts";
import type { ReplWorkerApi } from "../src/repl/protocol.ts";

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

/** Shadows each name on the object and removes it from every prototype that defines it, so a
 * getter cannot be fetched from the prototype and applied to the object. */
function removeGlobals(target: object, names: readonly string[]): void {
  const holders: object[] = [];
  for (let o: object | null = target; o && o !== Object.prototype; o = Object.getPrototypeOf(o) as object | null) holders.push(o);
  for (const name of names) {
    for (const holder of holders) {
      if (holder !== target && !Object.prototype.hasOwnProperty.call(holder, name)) continue;
      try {
        Object.defineProperty(holder, name, { value: undefined, configurable: false, writable: false });
      } catch {
        // Some properties cannot be redefined; the CSP still blocks what they would do.
      }
    }
  }
}

/** A stand-in for eval and the Function constructors: same name, throws instead of compiling. */
function refusal(name: string): (...args: unknown[]) => never {
  const refuse = function () {
    throw new EvalError(`${name}: compiling code from strings is disabled in the Python worker.`);
  };
  Object.defineProperty(refuse, "name", { value: name });
  return refuse;
}

/**
 * Without a CSP, `import()` inside code compiled from a string is a request no global can
 * stop, and any JS function proxied into Python offers `.constructor` (Function, or
 * AsyncFunction for an async one). Pyodide does not compile strings after boot (it runs under
 * a CSP without 'unsafe-eval'), so taking these away costs nothing.
 */
function removeStringCompilation(): void {
  const scope = self as unknown as Record<string, unknown>;
  const prototypes = [
    Function.prototype,
    Object.getPrototypeOf(async function () {}),
    Object.getPrototypeOf(function* () {}),
    Object.getPrototypeOf(async function* () {}),
  ] as object[];
  const names = ["Function", "AsyncFunction", "GeneratorFunction", "AsyncGeneratorFunction"];
  prototypes.forEach((proto, i) => {
    const stand = refusal(names[i]!);
    // `instanceof Function` keeps working: the stand-in shares the real prototype.
    Object.defineProperty(stand, "prototype", { value: proto });
    try {
      Object.defineProperty(proto, "constructor", { value: stand, configurable: false, writable: false });
    } catch {
      // as above
    }
    if (i === 0) scope.Function = stand;
  });
  scope.eval = refusal("eval");
}

/**
 * setTimeout and setInterval stay (asyncio needs them during a cell) but only take functions: a
 * string would be compiled like eval. Every timer a cell starts is remembered, and whatever is
 * still pending when the cell ends is cancelled: work scheduled "for later" (a timer that spins
 * or leaks after the cell returned) never runs.
 */
const cellTimers = new Set<number>();

function guardTimers(): void {
  for (const name of ["setTimeout", "setInterval"] as const) {
    const original = self[name].bind(self) as (handler: unknown, ms?: number, ...args: unknown[]) => number;
    const guarded = (handler: unknown, ms?: number, ...args: unknown[]) => {
      if (typeof handler !== "function") throw new EvalError(`${name} with a string is disabled in the Python worker.`);
      const id = original(
        name === "setTimeout"
          ? (...a: unknown[]) => {
              cellTimers.delete(id);
              (handler as (...x: unknown[]) => void)(...a);
            }
          : handler,
        ms,
        ...args,
      );
      cellTimers.add(id);
      return id;
    };
    Object.defineProperty(self, name, { value: guarded, configurable: false, writable: false });
  }
}

const clearTimer = self.clearTimeout.bind(self);
const clearRepeat = self.clearInterval.bind(self);

function cancelCellTimers(): void {
  for (const id of cellTimers) {
    clearTimer(id);
    clearRepeat(id);
  }
  cellTimers.clear();
}

function lockDown(): void {
  removeGlobals(self, NETWORK_GLOBALS);
  const nav = (self as unknown as { navigator?: object }).navigator;
  if (nav) removeGlobals(nav, NAVIGATOR_MEMBERS);
  removeStringCompilation();
  guardTimers();
}

const evidence = { filename: "rlm_evidence.py", source: evidenceSource };

/** Hooks only the sandboxed frame's worker has: Pyodide's files and the interrupt buffer come from the frame. */
export type SandboxedWorkerHooks = Pick<ReplWorkerHooks, "pyodideFiles" | "interruptBuffer" | "wasmModule">;

export function browserReplWorker(sandboxed: SandboxedWorkerHooks = {}): ReplWorkerApi {
  return createReplWorker({
    pythonSource,
    pythonSections: [evidence],
    // Python snapshots live in Cache Storage: read, and written (the put may finish later), before
    // lockDown() takes `caches` away from everything that runs after it. A sandboxed worker has
    // no storage of its own (an opaque origin): the page keeps its snapshot, over a port.
    snapshotStore: (setting) => {
      if (setting?.kind === "off") return { off: "snapshots are off for this REPL" };
      if (setting?.kind === "directory") return { off: "a browser worker cannot keep snapshots in a directory" };
      if (setting?.kind === "port") return portSnapshotStore(setting.port);
      return cacheStorageSnapshotStore(setting?.kind === "cache-storage" ? setting.cacheName : DEFAULT_SNAPSHOT_CACHE);
    },
    afterBoot: lockDown,
    afterCell: cancelCellTimers,
    ...sandboxed,
  });
}
