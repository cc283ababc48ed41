// The second wall of the Node REPL worker (the CLI, and every Node path that runs model code),
// raised after Python has started and before the first cell. The first wall is the sandbox
// process around it (src/node/python-sandbox.mjs: Node's permission model, no environment, no
// string compilation); this one holds where that one has a gap: Node before 25 has no network
// permission at all, so nothing that can reach a socket may be reachable from Python.
//
// What Python could otherwise reach, and what happens to it here:
// - globals: `process` (environment, builtin modules, bindings, addons, exit) is replaced by a
//   harmless stand-in; `fetch` and its family, `WebSocket`, `EventSource`, `BroadcastChannel`,
//   `navigator` are removed;
// - string compilation: eval and the Function constructors refuse (the process also runs with
//   --disallow-code-generation-from-strings);
// - Pyodide's own JavaScript: its `import(…)` refuses everything (no `node:net` for its sockets,
//   no `data:` module), Emscripten's NODEFS (which mounts host directories) is gone, and the
//   `pyodide_js` module (the API with loadPackage, loadBinaryFile, mountNodeFS, FS…) is no longer
//   importable: Python gets a stand-in holding only what Pyodide's own Python code asks of it;
// - `import js` only sees the names in JS_GLOBALS (given to Pyodide at start, see jsGlobals()),
//   and through `js.Error` no stack-trace hook of Python's sees a frame's receiver or function
//   (lockStackTraceHooks; Pyodide's JavaScript runs strict, pyodide-code-cache.node.ts);
// - timers: only functions, and whatever a cell leaves scheduled is cancelled when it ends.
import type { PyodideInterface } from "pyodide";
import { guardTimers, lockStackTraceHooks, removeGlobals, removeStringCompilation } from "../shared/lockdown.ts";

/** Globals of a Node worker that reach the network, other threads or the host. */
const NODE_NETWORK_GLOBALS = [
  "fetch",
  "Request",
  "Response",
  "Headers",
  "FormData",
  "WebSocket",
  "WebSocketStream",
  "EventSource",
  "XMLHttpRequest",
  "BroadcastChannel",
  "navigator",
  "Worker",
  "require",
  "module",
] as const;

/**
 * What `import js` offers Python: the language's own objects and the few web ones Pyodide's
 * Python code imports (timers, AbortController, TextDecoder…). Not `globalThis`, `process`,
 * `fetch` or anything else that reaches beyond the worker.
 */
const JS_GLOBALS = new Set([
  // ECMAScript
  "Object",
  "Function",
  "Array",
  "Number",
  "parseFloat",
  "parseInt",
  "Infinity",
  "NaN",
  "undefined",
  "Boolean",
  "String",
  "Symbol",
  "Date",
  "Promise",
  "RegExp",
  "Error",
  "AggregateError",
  "EvalError",
  "RangeError",
  "ReferenceError",
  "SyntaxError",
  "TypeError",
  "URIError",
  "JSON",
  "Math",
  "Intl",
  "ArrayBuffer",
  "Atomics",
  "Uint8Array",
  "Int8Array",
  "Uint16Array",
  "Int16Array",
  "Uint32Array",
  "Int32Array",
  "Float32Array",
  "Float64Array",
  "Uint8ClampedArray",
  "BigUint64Array",
  "BigInt64Array",
  "DataView",
  "Map",
  "BigInt",
  "Set",
  "WeakMap",
  "WeakSet",
  "Proxy",
  "Reflect",
  "FinalizationRegistry",
  "WeakRef",
  "decodeURI",
  "decodeURIComponent",
  "encodeURI",
  "encodeURIComponent",
  "escape",
  "unescape",
  "eval",
  "isFinite",
  "isNaN",
  "SharedArrayBuffer",
  "WebAssembly",
  // the web platform's harmless part
  "console",
  "queueMicrotask",
  "structuredClone",
  "setTimeout",
  "clearTimeout",
  "setInterval",
  "clearInterval",
  "setImmediate",
  "clearImmediate",
  "AbortController",
  "AbortSignal",
  "Event",
  "EventTarget",
  "TextEncoder",
  "TextDecoder",
  "URL",
  "URLSearchParams",
  "Blob",
  "DOMException",
  "performance",
  "crypto",
  "atob",
  "btoa",
]);

/**
 * The object Pyodide is given as `jsglobals` (the `js` module): a view of the worker's globals
 * that shows the names above and nothing else. Reads go to the live global, so a timer replaced
 * by the lockdown is the one Python gets.
 */
export function jsGlobals(): object {
  const target = Object.create(null) as Record<string, unknown>;
  const allowed = (name: string | symbol): name is string => typeof name === "string" && JS_GLOBALS.has(name);
  return new Proxy(target, {
    get: (_, name) => (allowed(name) ? (globalThis as Record<string, unknown>)[name] : undefined),
    has: (_, name) => allowed(name) && name in globalThis,
    ownKeys: () => [...JS_GLOBALS].filter((n) => n in globalThis),
    getOwnPropertyDescriptor: (_, name) =>
      allowed(name) && name in globalThis
        ? { value: (globalThis as Record<string, unknown>)[name], writable: false, enumerable: true, configurable: true }
        : undefined,
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
    getPrototypeOf: () => null,
    setPrototypeOf: () => false,
  });
}

/**
 * What stands where `process` was: Pyodide's JavaScript still asks it a few harmless things
 * (the platform, a user id, a umask, an exit code), and nothing else is there.
 */
function processStandIn(real: NodeJS.Process): object {
  return Object.freeze({
    platform: real.platform,
    version: real.version,
    versions: Object.freeze({ node: real.versions.node }),
    argv: Object.freeze([]),
    env: Object.freeze({}),
    exitCode: undefined,
    getuid: () => 0,
    getgid: () => 0,
    umask: () => 0o022,
    cwd: () => "/",
  });
}

/**
 * Python's `pyodide_js`: the real API object is unregistered, and in its place (in sys.modules)
 * a module holding only `_api.scheduleCallback` and `_api.config` (what pyodide.webloop
 * imports), the latter a copy with nothing but the flags it reads.
 */
const PYODIDE_JS_STAND_IN = `
import sys, types
def _rlm_stand_in():
    real = sys.modules.get("pyodide_js")
    api = types.SimpleNamespace()
    if real is not None:
        try:
            api.scheduleCallback = real._api.scheduleCallback
        except AttributeError:
            pass
    try:
        flag = bool(real._api.config.enableRunUntilComplete)
    except AttributeError:
        flag = False
    api.config = types.SimpleNamespace(enableRunUntilComplete=flag)
    module = types.ModuleType("pyodide_js", "Pyodide's API is not available in the sandbox.")
    module._api = api
    sys.modules["pyodide_js"] = module
    sys.modules["pyodide_js._api"] = api
_rlm_stand_in()
del _rlm_stand_in
`;

export interface NodeLockdown {
  /** Cancels what the last cell left scheduled; call after every cell. */
  afterCell(): void;
}

/** Raises the wall; `refuseImports` stops Pyodide's own `import(…)` (pyodide-code-cache.node.ts). */
export function lockDownNode(py: PyodideInterface, refuseImports: () => void): NodeLockdown {
  refuseImports();
  delete (py.FS as unknown as { filesystems: Record<string, unknown> }).filesystems.NODEFS;
  const scratch = py.toPy({}) as { destroy(): void };
  try {
    py.runPython(PYODIDE_JS_STAND_IN, { globals: scratch as never });
  } finally {
    scratch.destroy();
  }
  py.unregisterJsModule("pyodide_js");
  const real = globalThis.process;
  Object.defineProperty(globalThis, "process", { value: processStandIn(real), configurable: false, writable: false });
  removeGlobals(globalThis, NODE_NETWORK_GLOBALS);
  removeStringCompilation();
  lockStackTraceHooks();
  const timers = guardTimers([
    ["setTimeout", "clearTimeout"],
    ["setInterval", "clearInterval"],
    ["setImmediate", "clearImmediate"],
  ]);
  return { afterCell: () => timers.cancel() };
}
