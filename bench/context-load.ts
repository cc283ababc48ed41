// Time and peak memory to make 1, 10, 100 and 500 MB of text available as `context` in the
// Node REPL (a Pyodide worker thread), against a baseline measured in the same run: reading the
// same Blob into one JavaScript string on the main thread.
//
// Run: node --expose-gc --import tsx bench/context-load.ts [--write] [--sizes=1,10,100,500] [--runs=N]
// No JSPI flag needed: loading does not use sub-calls. --expose-gc is optional (steadier RSS).
import { createNodeRepl } from "../src/repl/node.ts";
import { MB, mb, samplePeak } from "./lib/peak.ts";
import { Report, load, spread, spreadOf, today } from "./lib/report.ts";
import { asciiBlob } from "./lib/text.ts";
import { machine, summarize } from "./stats.ts";
import { scriptArgs } from "./lib/args.ts";

const args = scriptArgs({ runs: { type: "string", number: "whole" }, sizes: { type: "string" } });
const SIZES = (args.sizes ?? "1,10,100,500").split(",").map(Number);
const runsFor = (size: number) => Number(args.runs ?? (size >= 500 ? 3 : 5));

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const rss = () => process.memoryUsage().rss;

interface LoadSample {
  ms: number;
  heapBefore: number;
  heapAfter: number;
  rssBefore: number;
  rssPeak: number;
}

/** One fresh REPL, one load: Pyodide's heap only grows, so each sample starts clean. */
async function loadOnce(size: number): Promise<LoadSample> {
  const repl = createNodeRepl();
  try {
    await repl.start();
    const heapBefore = (await repl.stats()).wasmHeapBytes;
    const blob = asciiBlob(size);
    gc();
    const rssBefore = rss();
    const sampler = samplePeak(rss, 20);
    const t = performance.now();
    const info = await repl.loadDocuments([{ name: "big.txt", data: blob }]);
    const ms = performance.now() - t;
    const rssPeak = sampler.stop();
    if (info.total_chars !== size * MB) throw new Error(`loaded ${info.total_chars} characters, expected ${size * MB}`);
    const heapAfter = (await repl.stats()).wasmHeapBytes;
    return { ms, heapBefore, heapAfter, rssBefore, rssPeak };
  } finally {
    repl.close();
  }
}

/** The baseline: the same bytes as one JS string on this thread (Blob → ArrayBuffer → decode). */
async function decodeOnce(size: number): Promise<number> {
  const blob = asciiBlob(size);
  const t = performance.now();
  const text = new TextDecoder().decode(await blob.arrayBuffer());
  const ms = performance.now() - t;
  if (text.length !== size * MB) throw new Error("short decode");
  return ms;
}

const report = new Report("context-load");
report.line(`Machine: ${machine()}. Date: ${today()}. Load average at start: ${load()}.`);
report.line();
report.table([
  "size",
  "load (ms) median",
  "p10–p90",
  "baseline decode (ms)",
  "ratio",
  "wasm heap after (MB)",
  "RSS before load (MB)",
  "RSS peak (MB)",
  "RSS peak − before (MB)",
  "runs",
]);
const raw: Record<string, unknown> = {};
for (const size of SIZES) {
  const samples: LoadSample[] = [];
  const baseline: number[] = [];
  let failure: string | null = null;
  for (let run = 0; run < runsFor(size); run++) {
    try {
      samples.push(await loadOnce(size));
    } catch (err) {
      failure = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      break;
    }
    gc();
    try {
      baseline.push(await decodeOnce(size));
    } catch (err) {
      baseline.length = 0;
      console.error(`baseline decode failed at ${size} MB: ${String(err)}`);
    }
    gc();
  }
  raw[`${size}MB`] = { samples, baseline, failure };
  if (!samples.length) {
    report.row([`${size} MB`, `failed: ${failure}`, "", "", "", "", "", "", "", "0"]);
    continue;
  }
  const t = spread(samples.map((s) => s.ms));
  const b = baseline.length ? spread(baseline) : null;
  const ratio = b ? (summarize(samples.map((s) => s.ms)).median / summarize(baseline).median).toFixed(1) : "–";
  const heap = spreadOf(samples.map((s) => s.heapAfter / MB));
  const before = spreadOf(samples.map((s) => s.rssBefore / MB));
  const peak = spreadOf(samples.map((s) => s.rssPeak / MB));
  const delta = spreadOf(samples.map((s) => (s.rssPeak - s.rssBefore) / MB));
  report.row([
    `${size} MB`,
    t.median,
    t.range,
    b ? `${b.median} (${b.range})` : "–",
    `${ratio}×`,
    heap.median,
    before.median,
    `${peak.median} (${peak.range})`,
    `${delta.median} (${delta.range})`,
    `${t.n}${failure ? ` (then failed: ${failure})` : ""}`,
  ]);
}
report.line();
report.line(
  `Wasm heap at boot (before any document): ${mb((raw[`${SIZES[0]}MB`] as { samples: LoadSample[] }).samples[0]?.heapBefore ?? 0)} MB. ` +
    "RSS = whole Node process (main thread + REPL worker thread), sampled every 20 ms during the load.",
);
if (args.write) {
  report.save();
  report.saveJson("", raw);
}
process.exit(0);
