// Pyodide refuses to start in a classic worker, which it recognises (when its module loads) by
// importScripts() taking a data: URL. The sandboxed frame's policy refuses data: anyway, but its
// worker must not depend on that: it hands Pyodide its module itself and never imports a script,
// so the probe finds nothing to call. Imported first by workers/browser/repl-sandboxed.worker.ts.
Object.defineProperty(self, "importScripts", { value: undefined, configurable: true, writable: true });

export {};
