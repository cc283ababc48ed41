// llama.cpp in the page (wllama, Chromium) against native llama.cpp (node-llama-cpp's prebuilt CPU
// build) on the same random-weight GGUF shaped like Qwen2.5-0.5B, in the same run: prefill and
// decode tokens/s at 1 thread and at every core, as llama.cpp's own counters report them, and
// what Stop does during a long prefill in the page. Random weights cost llama.cpp exactly what
// real ones do. The page's figures are reported as ratios to native (the target: within 2×).
//
// Run: node --import tsx bench/wllama.ts [--write] [--shape=qwen2.5-0.5b] [--runs=3] [--builds=default,compat] [--weights=q4_0]
//        [--threads=1,2] [--kv=f16,q8_0] [--flash=default,on,off] [--prompt-words=1400] [--decode-at=prompt]
//        [--no-stop] [--no-native] [--only=stop]
// (--builds: the page's llama.cpp builds to measure; compat is wasm32 + Asyncify, forced here
// where the browser would take the default Memory64 + JSPI one; simd is our own wasm32 + Asyncify
// build with ggml's SIMD128 kernels, vendor/llama-wasm; relaxed the same build's relaxed-SIMD
// wasm, vendor/llama-wasm/relaxed, which the page runs where the browser has relaxed SIMD.)
// Native llama.cpp: node-llama-cpp from this project when it depends on it, else the folder in
// NODE_LLAMA_CPP_DIR (a scratch `npm i node-llama-cpp@3.21.1 @node-llama-cpp/linux-x64@3.21.1
// --omit=optional --ignore-scripts`).
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import type { WllamaKvCacheType } from "../src/engines/wllama/protocol.ts";
import { tinyQwenGguf, type QwenShapeName, type QwenWeights } from "../tests/fixtures/gguf/index.ts";
import { callWllamaBench, openWllamaBench } from "./browser/wllama-page.ts";
import { startBenchPages } from "./browser/server.ts";
import { launchChromium } from "./lib/chromium.ts";
import { Report, load, today } from "./lib/report.ts";
import { machine, summarize } from "./stats.ts";
import { scriptArgs } from "./lib/args.ts";

const args = scriptArgs({
  builds: { type: "string" },
  "decode-at": { type: "string" },
  decode: { type: "string", number: "whole" },
  flash: { type: "string" },
  kv: { type: "string" },
  "no-native": { type: "boolean" },
  "no-stop": { type: "boolean" },
  only: { type: "string" },
  "prompt-words": { type: "string", number: "whole" },
  runs: { type: "string", number: "whole" },
  shape: { type: "string" },
  threads: { type: "string" },
  weights: { type: "string" },
});
const SHAPE = (args.shape ?? "qwen2.5-0.5b") as QwenShapeName;
const WEIGHTS = args.weights as QwenWeights | undefined; // the shape's own (Q8_0) by default
const RUNS = args.runs ?? 3;
const PROMPT_WORDS = args["prompt-words"] ?? 350; // about 500 tokens with the chat template
const DECODE_TOKENS = args.decode ?? 32;
// --decode-at=prompt: decode right after the timed prompt (a full KV cache, where its type and
// flash attention matter), not after a short one.
const DECODE_DEEP = args["decode-at"] === "prompt";
const STOP = !args["no-stop"];
const KV_TOKENS = 4096;
const CORES = availableParallelism();
const ONLY_STOP = args.only === "stop";
const THREADS = ONLY_STOP ? [1] : (args.threads?.split(",").map(Number) ?? [...new Set([1, CORES])]);
// KV cache types × flash attention ("default": llama.cpp's own choice). llama.cpp refuses a
// quantized V cache without flash attention, so those pairs are left out.
type Flash = "default" | "on" | "off";
interface Cache {
  kv: WllamaKvCacheType | "default";
  flash: Flash;
}
const CACHES: Cache[] = (args.kv ?? "default")
  .split(",")
  .flatMap((kv) => (args.flash ?? "default").split(",").map((flash) => ({ kv, flash }) as Cache))
  .filter((c) => !(c.kv !== "default" && c.kv !== "f16" && c.kv !== "f32" && c.flash === "off"));
const cacheName = (c: Cache) => `KV ${c.kv}, flash ${c.flash}`;
const pageCache = (c: Cache) => ({
  ...(c.kv === "default" ? {} : { kvCacheType: c.kv }),
  ...(c.flash === "default" ? {} : { flashAttention: c.flash === "on" }),
});
const nativeCache = (c: Cache) => ({
  ...(c.kv === "default" ? {} : { experimentalKvCacheKeyType: c.kv.toUpperCase(), experimentalKvCacheValueType: c.kv.toUpperCase() }),
  ...(c.flash === "default" ? {} : { flashAttention: c.flash === "on" }),
});
// simd: our build's SIMD128 wasm; relaxed: its relaxed-SIMD wasm (what the page runs in Chromium)
type Build = "default" | "compat" | "simd" | "relaxed";
const BUILDS = (args.builds ?? "default").split(",") as Build[];
const PROMPT = Array.from(
  { length: PROMPT_WORDS },
  (_, i) => ["harbour", "ledger", "tide", "keeper", "lamp", "storm", "north"][i % 7],
).join(" ");

interface Rate {
  prefill: number[];
  decode: number[];
}
const tps = (tokens: number, ms: number) => (tokens / ms) * 1000;
const med = (xs: number[]) => summarize(xs).median;

/** The part of node-llama-cpp this benchmark uses (it is not a dependency of this package yet). */
interface NodeLlamaSequence {
  clearHistory(): Promise<void>;
  evaluateWithoutGeneratingNewTokens(tokens: number[]): Promise<void>;
  evaluate(tokens: number[], options: { temperature: number }): AsyncIterable<number>;
}
interface NodeLlamaCpp {
  getLlama(options: { gpu: false; build: "never" }): Promise<{
    loadModel(o: { modelPath: string }): Promise<{
      tokenize(text: string): number[];
      createContext(o: {
        contextSize: number;
        threads: number;
        batchSize: number;
        flashAttention?: boolean;
        experimentalKvCacheKeyType?: string;
        experimentalKvCacheValueType?: string;
      }): Promise<{
        getSequence(): NodeLlamaSequence;
        dispose(): Promise<void>;
      }>;
      dispose(): Promise<void>;
    }>;
    dispose(): Promise<void>;
  }>;
}

async function importNodeLlamaCpp(): Promise<NodeLlamaCpp> {
  const dir = process.env.NODE_LLAMA_CPP_DIR;
  const specifier = dir ? pathToFileURL(join(dir, "node_modules/node-llama-cpp/dist/index.js")).href : "node-llama-cpp";
  return (await import(specifier)) as NodeLlamaCpp;
}

async function native(modelPath: string): Promise<Map<string, Rate>> {
  const { getLlama } = await importNodeLlamaCpp();
  const llama = await getLlama({ gpu: false, build: "never" });
  const model = await llama.loadModel({ modelPath });
  const out = new Map<string, Rate>();
  for (const [threads, cache] of THREADS.flatMap((t) => CACHES.map((c) => [t, c] as const))) {
    const context = await model.createContext({ contextSize: KV_TOKENS, threads, batchSize: 512, ...nativeCache(cache) });
    const sequence = context.getSequence();
    const rate: Rate = { prefill: [], decode: [] };
    for (let run = 0; run < RUNS; run++) {
      const tokens = model.tokenize(`${Math.random()} ${PROMPT}`);
      await sequence.clearHistory();
      let t = performance.now();
      await sequence.evaluateWithoutGeneratingNewTokens(tokens.slice(0, -1));
      rate.prefill.push(tps(tokens.length - 1, performance.now() - t));
      let last = tokens.slice(-1);
      if (!DECODE_DEEP) {
        await sequence.clearHistory();
        const short = model.tokenize(`${Math.random()} Write.`);
        await sequence.evaluateWithoutGeneratingNewTokens(short.slice(0, -1));
        last = short.slice(-1);
      }
      let n = 0;
      t = performance.now();
      for await (const token of sequence.evaluate(last, { temperature: 0 })) {
        void token;
        if (++n >= DECODE_TOKENS) break;
      }
      rate.decode.push(tps(n, performance.now() - t));
      console.log(
        `native ${threads} thread(s) ${cacheName(cache)} run ${run + 1}: prefill ${rate.prefill.at(-1)!.toFixed(0)} tok/s, decode ${rate.decode.at(-1)!.toFixed(1)} tok/s`,
      );
    }
    out.set(nativeKey(threads, cache), rate);
    await context.dispose();
  }
  await model.dispose();
  await llama.dispose();
  return out;
}

const nativeKey = (threads: number, cache: Cache) => `${threads}/${cacheName(cache)}`;
const key = (threads: number, build: Build, cache: Cache) => `${threads}/${build}/${cacheName(cache)}`;
// Every build at every thread count: our build starts at one thread since branch wt-simd's
// post-link fix (measured with it in docs/llama-wasm-build.md).
const RUNS_OF_BUILDS = THREADS.flatMap((t) => BUILDS.flatMap((b) => CACHES.map((c) => [t, b, c] as const)));

/** llama.cpp's own memory lines, shortened to what differs between settings (KV and compute buffers). */
function memoryNotes(log: string[]): string[] {
  return log
    .filter((l) => /kv_cache|KV|compute buffer|flash/i.test(l))
    .map((l) => `  llama.cpp: ${l.replace(/^\w+:\s*/, "").replace(/\s+/g, " ")}`);
}

async function measure(p: Page, threads: number, build: Build, cache: Cache, notes: string[]): Promise<Rate> {
  const [asked, relaxedSimd] = build === "relaxed" ? (["simd", true] as const) : ([build, false] as const);
  const loaded = await callWllamaBench(p, "load", threads, KV_TOKENS, asked === "default" ? undefined : asked, {
    ...pageCache(cache),
    ...(asked === "simd" ? { relaxedSimd } : {}),
  });
  if (build === "relaxed" && !loaded.relaxedSimd) throw new Error("this browser did not validate relaxed SIMD: the SIMD128 wasm ran");
  console.log(`page ${threads} thread(s) ${build} ${cacheName(cache)}: loaded in ${loaded.seconds.toFixed(1)} s`);
  notes.push(
    `${threads} thread(s), ${build} build, ${cacheName(cache)}: loaded in ${loaded.seconds.toFixed(1)} s, ${loaded.threads} thread(s) used, multi-thread ${loaded.multiThread}, compat ${loaded.compat}`,
    ...memoryNotes(loaded.memoryLog),
  );
  await callWllamaBench(p, "prefill", "warm up"); // the first call pays one-off costs
  const rate: Rate = { prefill: [], decode: [] };
  for (let run = 0; run < (ONLY_STOP ? 0 : RUNS); run++) {
    const text = `${Math.random()} ${PROMPT}`;
    const pre = await callWllamaBench(p, "prefill", text);
    rate.prefill.push(tps(pre.promptTokens, pre.promptMs));
    // the same prompt again comes from the slot's cache: only the decode is new
    const dec = DECODE_DEEP
      ? await callWllamaBench(p, "continueAfter", text, DECODE_TOKENS)
      : await callWllamaBench(p, "decode", DECODE_TOKENS);
    rate.decode.push(tps(dec.predictedTokens, dec.predictedMs));
    console.log(
      `page ${threads} thread(s) ${build} ${cacheName(cache)} run ${run + 1}: prefill ${rate.prefill.at(-1)!.toFixed(0)} tok/s (${pre.promptTokens} tokens), decode ${rate.decode.at(-1)!.toFixed(1)} tok/s`,
    );
  }
  return rate;
}

async function page(modelPath: string): Promise<{ rates: Map<string, Rate>; notes: string[] }> {
  const server = await startBenchPages();
  const browser = await launchChromium();
  const notes: string[] = [];
  const rates = new Map<string, Rate>();
  try {
    const context = await browser.newContext();
    const p = await context.newPage();
    const stored = await openWllamaBench(p, server.url, modelPath);
    console.log(`stored in ${stored.seconds.toFixed(1)} s`);
    notes.push(`kept in OPFS in ${stored.seconds.toFixed(1)} s (${Math.round(stored.bytes / 1024 ** 2)} MiB)`);
    const env = await callWllamaBench(p, "environment");
    console.log(`hardwareConcurrency ${env.hardwareConcurrency}, isolated ${env.crossOriginIsolated}`);
    notes.push(`navigator.hardwareConcurrency in the worker: ${env.hardwareConcurrency}; cross-origin isolated ${env.crossOriginIsolated}`);
    for (const [threads, build, cache] of RUNS_OF_BUILDS) {
      // One setting llama.cpp cannot run (it aborts) is a finding, not the end of the benchmark.
      try {
        rates.set(key(threads, build, cache), await measure(p, threads, build, cache, notes));
      } catch (err) {
        const why = err instanceof Error ? err.message.split("\n")[0] : String(err);
        console.log(`page ${threads} thread(s) ${build} ${cacheName(cache)}: FAILED ${why}`);
        notes.push(`${threads} thread(s), ${build} build, ${cacheName(cache)}: FAILED (${why})`);
      }
    }
    const long = `${PROMPT} ${PROMPT} ${PROMPT}`;
    const stop = STOP ? await callWllamaBench(p, "abortPrefill", long, 500) : null;
    if (stop)
      notes.push(
        `Stop 0.5 s into a ~${Math.round(PROMPT_WORDS * 3 * 1.45).toLocaleString("en-US")}-token prefill (${THREADS.at(-1)} thread(s)): the call ended ${Math.round(stop.stopMs)} ms after Stop; the next request ${stop.nextWorks ? "worked" : "FAILED"}`,
      );
  } finally {
    await browser.close();
    await server.close();
  }
  return { rates, notes };
}

const report = new Report("wllama");
const modelPath = await tinyQwenGguf({ shape: SHAPE, ...(WEIGHTS ? { weights: WEIGHTS } : {}) });
report.line(`### llama.cpp in the page (wllama 3.13.0) vs native llama.cpp (node-llama-cpp 3.21.1), ${today()}`);
report.line("");
report.line(
  `Machine: ${machine()}; load average at start ${load()}. Model: random-weight GGUF shaped like ${SHAPE} (${WEIGHTS ?? "q8_0"} matrices, Q8_0 embedding), ` +
    `${KV_TOKENS}-token KV cache, prompt ≈${Math.round(PROMPT_WORDS * 1.45)} tokens, ${DECODE_TOKENS} tokens decoded, ${RUNS} runs each (median). Tokens/s from llama.cpp's own counters in the page (timings) and from wall time around node-llama-cpp's evaluate calls.`,
);
report.line("");
const NO_NATIVE = args["no-native"];
const nativeRates = ONLY_STOP || NO_NATIVE ? new Map<string, Rate>() : await native(modelPath);
const pageRun = await page(modelPath);
if (ONLY_STOP) {
  for (const n of pageRun.notes) report.line(`- ${n}`);
  process.exit(0);
}
report.table([
  "threads",
  "page build",
  "KV cache, flash attention",
  "prefill tok/s: page",
  "native",
  "page / native",
  "decode tok/s: page",
  "native",
  "page / native",
]);
for (const [threads, build, cache] of RUNS_OF_BUILDS) {
  const pg = pageRun.rates.get(key(threads, build, cache));
  if (!pg) continue; // failed: see the notes
  const nt = nativeRates.get(nativeKey(threads, cache)) ?? { prefill: [NaN], decode: [NaN] };
  const ratio = (a: number[], b: number[]) => `${(med(a) / med(b)).toFixed(2)}×`;
  report.row([
    threads,
    build,
    `${cache.kv}, ${cache.flash}`,
    med(pg.prefill).toFixed(0),
    med(nt.prefill).toFixed(0),
    ratio(pg.prefill, nt.prefill),
    med(pg.decode).toFixed(1),
    med(nt.decode).toFixed(1),
    ratio(pg.decode, nt.decode),
  ]);
}
report.line("");
for (const n of pageRun.notes) report.line(`- ${n}`);
if (args.write) console.log(`written to ${report.save()}`);
