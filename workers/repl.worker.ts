// The REPL as a browser module worker. Model-written code runs here, so after Pyodide has
// loaded, the worker drops every way to reach the network, storage or the page that it does
// not need, and every way to compile JavaScript from a string. The worker script's
// Content-Security-Policy (set by the server, see vite.config.ts) is the wall the browser
// enforces; lockDown() is the second wall, for hosts that fail to send that header (the
// sandbox e2e test runs the attacks against each wall alone).
import * as Comlink from "comlink";
import pythonSource from "./python/rlm_runtime.py?raw";
import evidenceSource from "./python/rlm_evidence.py?raw";
import { createReplWorker } from "./repl-runtime.ts";

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
  // Window-only today, listed in case a browser exposes them to workers later.
  "fetchLater",
  "webkitRequestFileSystem",
  "webkitResolveLocalFileSystemURL",
] as const;

/** Navigator members with the same reach (storageBuckets hands out indexedDB and caches). */
const NAVIGATOR_MEMBERS = ["sendBeacon", "serviceWorker", "storage", "storageBuckets"] as const;

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
  // setTimeout and setInterval stay (asyncio needs them) but only take functions: a string
  // would be compiled like eval.
  for (const name of ["setTimeout", "setInterval"] as const) {
    const original = self[name].bind(self) as (handler: unknown, ms?: number, ...args: unknown[]) => number;
    const guarded = (handler: unknown, ms?: number, ...args: unknown[]) => {
      if (typeof handler !== "function") throw new EvalError(`${name} with a string is disabled in the Python worker.`);
      return original(handler, ms, ...args);
    };
    Object.defineProperty(self, name, { value: guarded, configurable: false, writable: false });
  }
}

function lockDown(): void {
  removeGlobals(self, NETWORK_GLOBALS);
  const nav = (self as unknown as { navigator?: object }).navigator;
  if (nav) removeGlobals(nav, NAVIGATOR_MEMBERS);
  removeStringCompilation();
}

const evidence = { filename: "rlm_evidence.py", source: evidenceSource };
Comlink.expose(createReplWorker({ pythonSource, pythonSections: [evidence], afterBoot: lockDown }));
