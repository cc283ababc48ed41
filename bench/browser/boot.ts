// Boot page: ?mode=pyodide starts a module worker that only runs loadPyodide; ?mode=repl starts
// the project's REPL client (worker, Pyodide, the Python runtime, sub-call channel). Either way
// it records performance.now() (milliseconds since navigation start) when Python is ready.
import { createBrowserRepl, pyodideIndexUrl } from "../../src/repl/browser.ts";

declare global {
  interface Window {
    bootResult?: { readyAt: number; workerMs: number | null; mode: string; detail: string } | { error: string };
  }
}

const mode = new URLSearchParams(location.search).get("mode") ?? "pyodide";
const status = document.getElementById("status")!;

async function run(): Promise<void> {
  if (mode === "pyodide") {
    const worker = new Worker(new URL("./pyodide-only.worker.ts", import.meta.url), { type: "module" });
    const reply = await new Promise<{ workerMs: number; version: string }>((resolve, reject) => {
      worker.onmessage = (e) => resolve(e.data as { workerMs: number; version: string });
      worker.onerror = (e) => reject(new Error(e.message));
      worker.postMessage({ indexURL: pyodideIndexUrl() });
    });
    window.bootResult = { readyAt: performance.now(), workerMs: reply.workerMs, mode, detail: `Python ${reply.version}` };
  } else {
    const repl = createBrowserRepl();
    const info = await repl.start();
    window.bootResult = { readyAt: performance.now(), workerMs: info.bootMs, mode, detail: `${info.syncMode}, Python ${info.pythonVersion}` };
  }
  status.textContent = "ready";
}

run().catch((err: unknown) => {
  window.bootResult = { error: err instanceof Error ? err.message : String(err) };
  status.textContent = "failed";
});
