// Chromium benchmarks of the browser REPL (bench/browser/ pages, production build):
//  1. time and memory to make 1, 10, 100, 500 MB available as `context` (Blob made in the page,
//     loadDocuments → WORKERFS mount → Python str), baseline: TextDecoder on the same Blob in the
//     same page;
//  2. harness time per root turn and llm_query round trip with an in-memory model, JSPI and
//     SharedArrayBuffer modes, baseline: the same method on the Node REPL in this process.
//
// Run: node --experimental-wasm-stack-switching --import tsx bench/browser-bench.ts [--write]
//      [--sizes=1,10,100,500] [--only=load|harness]
// The flag is only for the Node baseline's JSPI row (Chromium has JSPI on by default); without
// it the Node baseline runs the SharedArrayBuffer mode only.
import type { Page } from "playwright-core";
import { createNodeRepl } from "../src/repl/node.ts";
import type { SyncMode } from "../src/repl/protocol.ts";
import type { ReplBenchApi } from "./browser/repl-bench.ts";
import { startBenchPages } from "./browser/server.ts";
import { launchChromium, sampleChromiumPeak, chromiumRssReader } from "./lib/chromium.ts";
import { perTurn, roundTrip } from "./lib/harness-runs.ts";
import { MB } from "./lib/peak.ts";
import { Report, load, spread, spreadOf, today } from "./lib/report.ts";
import { machine, summarize } from "./stats.ts";
import { scriptArgs } from "./lib/args.ts";

const args = scriptArgs({ only: { type: "string" }, sizes: { type: "string" } });
const SIZES = (args.sizes ?? "1,10,100,500").split(",").map(Number);
const ONLY = args.only;
const runsFor = (size: number) => (size >= 500 ? 3 : 5);
const TURNS = 40;
const RUNS = 5;
const CALLS = 300;

type Bench = ReplBenchApi;
/** Calls window.bench.<name>(...args) in the page. */
function call<K extends keyof Bench>(page: Page, name: K, ...args: Parameters<Bench[K]>): Promise<Awaited<ReturnType<Bench[K]>>> {
  return page.evaluate(([n, a]) => (window.bench[n as keyof Bench] as (...x: unknown[]) => unknown)(...(a as unknown[])), [
    name,
    args,
  ] as const) as Promise<Awaited<ReturnType<Bench[K]>>>;
}

const report = new Report("browser-bench");
const raw: Record<string, unknown> = {};
const pages = await startBenchPages();
const browser = await launchChromium(["--js-flags=--expose-gc", "--enable-blink-features=ForceEagerMeasureMemory"]);
const chromiumVersion = browser.version();
const context = await browser.newContext();
const page = await context.newPage();
const pageErrors: string[] = [];
page.on("pageerror", (e) => pageErrors.push(e.message));
await page.goto(pages.url);
await page.waitForFunction(() => document.getElementById("status")?.textContent === "ready");
const isolated = await call(page, "crossOriginIsolated");
const jspi = await call(page, "hasJspi");
report.line(`Machine: ${machine()}, Chromium ${chromiumVersion} (headless). Date: ${today()}. Load average at start: ${load()}.`);
report.line(`Page cross-origin isolated: ${isolated}; JSPI in the page: ${jspi}.`);

async function contextLoad(): Promise<void> {
  report.line();
  report.line("### Chromium: N MB made available as `context`");
  report.line();
  report.table([
    "size",
    "load (ms) median",
    "p10–p90",
    "baseline decode (ms)",
    "ratio",
    "wasm heap after (MB)",
    "UA memory after: page / workers (MB)",
    "renderers' RSS peak (MB)",
    "renderers' peak − before (MB)",
    "all Chromium RSS peak − before (MB)",
    "runs",
  ]);
  const readRss = chromiumRssReader();
  for (const size of SIZES) {
    const samples: Array<Record<string, number>> = [];
    const baseline: number[] = [];
    let failure: string | null = null;
    for (let run = 0; run < runsFor(size); run++) {
      try {
        const prep = await call(page, "prepareLoad", size);
        const before = readRss();
        const sampler = sampleChromiumPeak(20);
        const loaded = await call(page, "load");
        const peak = sampler.stop();
        const done = await call(page, "finishLoad");
        if (loaded.totalChars !== size * MB) throw new Error(`loaded ${loaded.totalChars} characters, expected ${size * MB}`);
        samples.push({
          ms: loaded.ms,
          heapBefore: prep.heapBefore,
          heapAfter: done.heapAfter,
          uaWindow: done.uaAfter?.window ?? NaN,
          uaWorkers: done.uaAfter?.workers ?? NaN,
          uaWorkersBefore: prep.uaBefore?.workers ?? NaN,
          // Every renderer: in Chromium, Python runs in the sandboxed frame's process of its own.
          rendererBefore: before.renderers,
          rendererPeak: peak.renderers,
          totalBefore: before.total,
          totalPeak: peak.total,
        });
      } catch (err) {
        failure = err instanceof Error ? err.message.split("\n")[0]! : String(err);
        // A crashed renderer takes the page with it: reopen for the next size.
        await page.goto(pages.url).catch(() => undefined);
        await page.waitForFunction(() => document.getElementById("status")?.textContent === "ready").catch(() => undefined);
        break;
      }
      try {
        baseline.push(await call(page, "decodeBaseline", size));
      } catch (err) {
        console.error(`baseline decode failed at ${size} MB: ${String(err)}`);
      }
    }
    raw[`load-${size}MB`] = { samples, baseline, failure };
    if (!samples.length) {
      report.row([`${size} MB`, `failed: ${failure}`, "", "", "", "", "", "", "", "", "0"]);
      continue;
    }
    const col = (k: string) => samples.map((s) => s[k]!);
    const t = spread(col("ms"));
    const b = baseline.length ? spread(baseline) : null;
    const ratio = b ? `${(summarize(col("ms")).median / summarize(baseline).median).toFixed(1)}×` : "–";
    const perMb = (k: string) => spreadOf(col(k).map((v) => v / MB));
    const delta = (peakKey: string, beforeKey: string) => spreadOf(samples.map((s) => (s[peakKey]! - s[beforeKey]!) / MB));
    report.row([
      `${size} MB`,
      t.median,
      t.range,
      b ? `${b.median} (${b.range})` : "–",
      ratio,
      perMb("heapAfter").median,
      `${perMb("uaWindow").median} / ${perMb("uaWorkers").median}`,
      `${perMb("rendererPeak").median} (${perMb("rendererPeak").range})`,
      `${delta("rendererPeak", "rendererBefore").median} (${delta("rendererPeak", "rendererBefore").range})`,
      `${delta("totalPeak", "totalBefore").median} (${delta("totalPeak", "totalBefore").range})`,
      `${t.n}${failure ? ` (then failed: ${failure})` : ""}`,
    ]);
  }
}

async function harness(): Promise<void> {
  report.line();
  report.line("### Chromium: harness per root turn and llm_query round trip (in-memory model)");
  report.line();
  report.table(["measurement (ms)", "Chromium median", "p10–p90", "samples", "Node same run: median (p10–p90)", "Chromium / Node"]);
  const nodeModes: SyncMode[] = "Suspending" in WebAssembly || "Suspender" in WebAssembly ? ["jspi", "sab"] : ["sab"];
  for (const mode of ["jspi", "sab"] as SyncMode[]) {
    const turns = await call(page, "perTurn", mode, TURNS, RUNS);
    const trips = await call(page, "roundTrip", mode, CALLS, RUNS);
    if (turns.syncMode !== mode || trips.syncMode !== mode)
      throw new Error(`asked for ${mode}, the REPL used ${turns.syncMode}/${trips.syncMode}`);
    let node: { turn: number[]; harness: number[]; trips: number[] } | null = null;
    if (nodeModes.includes(mode)) {
      const r = createNodeRepl({ syncMode: mode });
      await r.start();
      await r.setContextText("benchmark context");
      const t = await perTurn(r, TURNS, RUNS);
      node = { turn: t.turn, harness: t.harness, trips: await roundTrip(r, CALLS, RUNS) };
      r.close();
    }
    raw[`harness-${mode}`] = { chromium: { ...turns, trips: trips.perCall }, node };
    const row = (label: string, samples: number[], nodeSamples: number[] | undefined, n: string) => {
      const s = spread(samples);
      const ns = nodeSamples ? spread(nodeSamples) : null;
      const ratio = nodeSamples ? `${(summarize(samples).median / summarize(nodeSamples).median).toFixed(1)}×` : "–";
      report.row([`[${mode}] ${label}`, s.median, s.range, n, ns ? `${ns.median} (${ns.range})` : "not run (no JSPI flag)", ratio]);
    };
    row("root turn: whole turn", turns.turn, node?.turn, String(turns.turn.length));
    row("root turn: harness only (turn − model − cell)", turns.harness, node?.harness, String(turns.harness.length));
    row("llm_query round trip", trips.perCall, node?.trips, `${RUNS} × ${CALLS} calls`);
  }
}

try {
  if (ONLY !== "harness") await contextLoad();
  if (ONLY !== "load") await harness();
  report.line();
  report.line(
    "Memory: wasm heap = `repl.stats().wasmHeapBytes` (Pyodide's WebAssembly memory). UA memory = " +
      "`performance.measureUserAgentSpecificMemory()` after the load (JS heaps of the page and of its dedicated workers; " +
      "Chromium counts the wasm memory of a worker there only if it reports it as JS memory). RSS = /proc of the Chromium " +
      'processes sampled every 20 ms during `loadDocuments` only; "renderer" is the process of the page and its workers.',
  );
  if (pageErrors.length) report.line(`Page errors: ${pageErrors.join(" | ")}`);
} finally {
  await browser.close();
  await pages.close();
}
if (args.write) {
  report.save();
  report.saveJson("", raw);
}
process.exit(0);
