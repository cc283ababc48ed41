// Boot page: ?mode=pyodide starts a module worker that only runs loadPyodide; ?mode=repl starts
// the project's REPL client (worker, Pyodide from its memory snapshot when one is stored, the
// Python runtime, sub-call channel); ?mode=repl-nosnap the same with snapshots off. Either way it
// records performance.now() (milliseconds since navigation start) when Python is ready.
// Once ready, window.extraRepl() starts one more REPL in the loaded page (a new session's sandbox)
// and window.idleRepls() keeps several running, for memory per idle sandbox.
import type { ReplClient } from "../../src/repl/client.ts";
import { createBrowserRepl, pyodideIndexUrl, sharedWasmModule } from "../../src/repl/browser.ts";
import type { BootPath } from "../../src/repl/protocol.ts";

/**
 * How an extra REPL starts: in the sandboxed frame (Chromium's default: the frame's Module + the
 * snapshot), or in the page's own workers with the page's Module + snapshot, snapshot only, or a
 * full boot.
 */
export type ExtraKind = "frame" | "module+snapshot" | "snapshot" | "none";

declare global {
  interface Window {
    bootResult?: { readyAt: number; workerMs: number | null; mode: string; detail: string; path: BootPath | null } | { error: string };
    extraRepl?: (kind: ExtraKind) => Promise<{ ms: number; path: BootPath | null; usedModule: boolean }>;
    idleRepls?: (kind: ExtraKind, count: number) => Promise<number>;
  }
}

const params = new URLSearchParams(location.search);
const mode = params.get("mode") ?? "pyodide";
/** REPL modes: frame=0 keeps Python in the page's own workers; default: where the app runs it. */
const sandboxFrame = params.get("frame") === "0" ? { sandboxFrame: false } : {};
const status = document.getElementById("status")!;
const kept: ReplClient[] = [];

function replFor(kind: ExtraKind): ReplClient {
  if (kind === "frame") return createBrowserRepl({ sandboxFrame: true });
  if (kind === "none") return createBrowserRepl({ snapshot: { kind: "off" }, shareWasm: false, sandboxFrame: false });
  return createBrowserRepl({ shareWasm: kind === "module+snapshot", sandboxFrame: false });
}

window.extraRepl = async (kind) => {
  const usedModule = kind === "module+snapshot" && (await sharedWasmModule()) !== null;
  const started = performance.now();
  const repl = replFor(kind);
  const info = await repl.start();
  const ms = performance.now() - started;
  repl.close();
  return { ms, path: info.snapshot?.path ?? null, usedModule };
};

window.idleRepls = async (kind, count) => {
  if (kind === "module+snapshot") await sharedWasmModule();
  for (let i = 0; i < count; i++) {
    const repl = replFor(kind);
    await repl.start();
    kept.push(repl);
  }
  return kept.length;
};

async function run(): Promise<void> {
  if (mode === "pyodide") {
    const worker = new Worker(new URL("./pyodide-only.worker.ts", import.meta.url), { type: "module" });
    const reply = await new Promise<{ workerMs: number; version: string }>((resolve, reject) => {
      worker.onmessage = (e) => resolve(e.data as { workerMs: number; version: string });
      worker.onerror = (e) => reject(new Error(e.message));
      worker.postMessage({ indexURL: pyodideIndexUrl() });
    });
    window.bootResult = { readyAt: performance.now(), workerMs: reply.workerMs, mode, detail: `Python ${reply.version}`, path: null };
  } else {
    const repl = createBrowserRepl({ ...sandboxFrame, ...(mode === "repl-nosnap" ? { snapshot: { kind: "off" } } : {}) });
    const info = await repl.start();
    kept.push(repl);
    const note = info.snapshot?.note ? ` (${info.snapshot.note})` : "";
    window.bootResult = {
      readyAt: performance.now(),
      workerMs: info.bootMs,
      mode,
      detail: `${info.syncMode}, Python ${info.pythonVersion}, ${info.snapshot?.path ?? "?"}${note}`,
      path: info.snapshot?.path ?? null,
    };
  }
  status.textContent = "ready";
}

run().catch((err: unknown) => {
  window.bootResult = { error: err instanceof Error ? err.message : String(err) };
  status.textContent = "failed";
});
