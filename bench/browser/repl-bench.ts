// REPL bench page for bench/browser-bench.ts: the project's browser REPL (a Pyodide module
// worker) driven from the page, as the app drives it. Each call is a small step so that the
// Node side can sample Chromium's memory around exactly the part it measures.
import type { ReplClient } from "../../src/repl/client.ts";
import { createBrowserRepl } from "../../src/repl/browser.ts";
import type { SyncMode } from "../../src/repl/protocol.ts";
import { perTurn, roundTrip } from "../lib/harness-runs.ts";
import { asciiBlob } from "../lib/text.ts";

type UaMemory = { bytes: number; breakdown: Array<{ bytes: number; types: string[]; attribution: Array<{ scope: string }> }> };

const measureMemory = (performance as unknown as { measureUserAgentSpecificMemory?: () => Promise<UaMemory> })
  .measureUserAgentSpecificMemory;
const collect = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

/** performance.measureUserAgentSpecificMemory(), split into the page and its workers. */
async function uaMemory(): Promise<{ total: number; window: number; workers: number } | null> {
  if (!measureMemory || !crossOriginIsolated) return null;
  const m = await measureMemory.call(performance);
  let window = 0;
  let workers = 0;
  for (const b of m.breakdown) {
    if (b.attribution.some((a) => a.scope === "DedicatedWorkerGlobalScope")) workers += b.bytes;
    else if (b.attribution.some((a) => a.scope === "Window")) window += b.bytes;
  }
  return { total: m.bytes, window, workers };
}

let repl: ReplClient | null = null;
let blob: Blob | null = null;

const api = {
  crossOriginIsolated: () => crossOriginIsolated,
  hasJspi: () => "Suspending" in WebAssembly || "Suspender" in WebAssembly,

  /** A fresh REPL (its heap never shrinks) and the document as a Blob made in the page. */
  async prepareLoad(megabytes: number) {
    repl?.close();
    repl = createBrowserRepl();
    const boot = await repl.start();
    blob = asciiBlob(megabytes);
    collect();
    return { syncMode: boot.syncMode, heapBefore: (await repl.stats()).wasmHeapBytes, uaBefore: await uaMemory() };
  },
  async load() {
    const t = performance.now();
    const info = await repl!.loadDocuments([{ name: "big.txt", data: blob! }]);
    return { ms: performance.now() - t, totalChars: info.total_chars };
  },
  async finishLoad() {
    const heapAfter = (await repl!.stats()).wasmHeapBytes;
    const uaAfter = await uaMemory();
    repl!.close();
    repl = null;
    blob = null;
    collect();
    return { heapAfter, uaAfter };
  },
  /** Baseline in the same browser: the same Blob as one JS string on the main thread. */
  async decodeBaseline(megabytes: number) {
    const b = asciiBlob(megabytes);
    const t = performance.now();
    const text = new TextDecoder().decode(await b.arrayBuffer());
    const ms = performance.now() - t;
    if (text.length !== b.size) throw new Error("short decode");
    collect();
    return ms;
  },

  /** bench/harness.ts per-turn method, in this browser, with the sub-call channel asked for. */
  async perTurn(syncMode: SyncMode, turns: number, runs: number) {
    const r = createBrowserRepl({ syncMode });
    try {
      const boot = await r.start();
      await r.setContextText("benchmark context");
      return { syncMode: boot.syncMode, ...(await perTurn(r, turns, runs)) };
    } finally {
      r.close();
    }
  },
  /** bench/harness.ts llm_query round trip (ms per call, timed inside Python). */
  async roundTrip(syncMode: SyncMode, calls: number, runs: number) {
    const r = createBrowserRepl({ syncMode });
    try {
      const boot = await r.start();
      await r.setContextText("benchmark context");
      return { syncMode: boot.syncMode, perCall: await roundTrip(r, calls, runs) };
    } finally {
      r.close();
    }
  },
};

export type ReplBenchApi = typeof api;
declare global {
  interface Window {
    bench: ReplBenchApi;
  }
}
window.bench = api;
document.getElementById("status")!.textContent = "ready";
