// The sandbox policy for the Python REPL worker's script, shared by the dev/preview servers
// (vite.config.ts) and the service worker (src/sw.ts), and documented for production hosts.
// It allows only our own origin and WebAssembly compilation: Pyodide loads its files from 'self';
// fetch to any other origin, eval, and the Function-constructor escape from Python all fail.
export const REPL_WORKER_CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; worker-src 'none'; img-src 'none'; media-src 'none'; object-src 'none'; form-action 'none'; base-uri 'none'";

export function isReplWorkerScript(pathOrUrl: string): boolean {
  return /repl\.worker[^/]*\.(?:ts|js)(?:\?|$)/.test(pathOrUrl);
}
