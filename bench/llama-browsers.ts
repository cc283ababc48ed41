// Does our llama.cpp WebAssembly build (vendor/llama-wasm) run in every engine, not only Chromium?
// The bench page (the app's own llama.cpp worker) in Chromium, Firefox and WebKit: keep the tiny
// random-weight Qwen fixture, load it with our build and with wllama's compat build, greedy-decode
// a few tokens, and compare the text across engines and builds (the same model and llama.cpp must
// give the same tokens; tests/e2e/llama-wasm-agreement.test.ts checks Chromium against native).
//
// Run: node --import tsx bench/llama-browsers.ts [--engines=chromium,firefox,webkit] [--threads=2] [--weights=q4_0]
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import type { WllamaBenchApi } from "./browser/wllama-bench.ts";
import { startBenchPages } from "./browser/server.ts";
import { tinyQwenGguf, type QwenWeights } from "../tests/fixtures/gguf/index.ts";
import { launchEngine, missingEngine, waitForFunction, type EngineName, type EnginePage } from "../tests/e2e/engines/index.ts";
import { load, today } from "./lib/report.ts";
import { scriptArgs } from "./lib/args.ts";

const args = scriptArgs({ engines: { type: "string" }, threads: { type: "string", number: "whole" }, weights: { type: "string" } });
const ENGINES = (args.engines ?? "chromium,firefox,webkit").split(",") as EngineName[];
const THREADS = args.threads ?? 2;
const WEIGHTS = (args.weights ?? "q8_0") as QwenWeights;
const TEXT = "Harbour ledger, tide keeper: count the lamps.";
const TOKENS = 12;

// WebDriver reports a page's rejection as its stack alone: the page returns the error's name and
// message instead, so a failure says what failed.
async function call<K extends keyof WllamaBenchApi>(page: EnginePage, name: K, ...args: Parameters<WllamaBenchApi[K]>) {
  const out = (await page.evaluate(
    ([n, a]) =>
      Promise.resolve()
        .then(() => (window as unknown as { wllamaBench: Record<string, (...x: unknown[]) => unknown> }).wllamaBench[n]!(...a))
        .then(
          (value) => ({ value }),
          (e: unknown) => ({ error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) }),
        ),
    [name as string, args as unknown[]] as [string, unknown[]],
  )) as { value: Awaited<ReturnType<WllamaBenchApi[K]>> } | { error: string };
  if ("error" in out) throw new Error(`${name}: ${out.error}`);
  return out.value;
}

interface Outcome {
  engine: EngineName;
  version: string;
  build: "simd" | "relaxed" | "compat";
  result: string;
  text?: string;
}

const modelPath = await tinyQwenGguf({ arch: "qwen2", weights: WEIGHTS });
const server = await startBenchPages();
const outcomes: Outcome[] = [];
try {
  for (const engine of ENGINES) {
    const missing = missingEngine(engine);
    if (missing) {
      outcomes.push({ engine, version: "-", build: "simd", result: `not run: ${missing}` });
      continue;
    }
    const browser = await launchEngine(engine);
    try {
      // simd: our SIMD128 wasm; relaxed: our relaxed-SIMD wasm, which the page picks wherever it
      // validates (Chromium and Firefox 153 yes, WebKitGTK 2.50 no: the SIMD128 one runs there)
      for (const build of ["simd", "relaxed", "compat"] as const) {
        // a fresh page per build: one llama.cpp worker, as the app has
        const page = await browser.newPage();
        try {
          await page.goto(`${server.url}wllama.html`);
          await waitForFunction(page, () => "wllamaBench" in window, undefined, { timeout: 120_000, what: "the bench page" });
          await page.setInputFiles({ css: "#model" }, [
            { name: basename(modelPath), mimeType: "application/octet-stream", buffer: readFileSync(modelPath) },
          ]);
          await call(page, "store");
          const env = await call(page, "environment");
          const loaded = await call(page, "load", THREADS, 1024, build === "compat" ? "compat" : "simd", {
            relaxedSimd: build === "relaxed",
          });
          const got = await call(page, "generate", TEXT, TOKENS);
          outcomes.push({
            engine,
            version: browser.version,
            build,
            result: `loaded in ${loaded.seconds.toFixed(1)} s, ${loaded.threads} thread(s), multi-thread ${loaded.multiThread}, relaxed wasm ${loaded.relaxedSimd} (hardwareConcurrency ${env.hardwareConcurrency}, isolated ${env.crossOriginIsolated}); ${got.promptTokens} prompt tokens`,
            text: got.text,
          });
        } catch (err) {
          outcomes.push({
            engine,
            version: browser.version,
            build,
            result: `FAILED: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`,
          });
        } finally {
          await page.close().catch(() => undefined);
        }
        console.log(JSON.stringify(outcomes.at(-1)));
      }
    } finally {
      await browser.close();
    }
  }
} finally {
  await server.close();
}

const reference = outcomes.find((o) => o.engine === "chromium" && o.build === "simd" && o.text !== undefined)?.text;
console.log(
  `\n### Our llama.cpp build in three engines, ${today()} (load average ${load()}; tiny qwen2 ${WEIGHTS} fixture, ${THREADS} thread(s))\n`,
);
console.log("| engine | build | outcome | greedy text same as Chromium + simd |");
console.log("|---|---|---|---|");
for (const o of outcomes)
  console.log(
    `| ${o.engine} ${o.version} | ${o.build} | ${o.result} | ${o.text === undefined ? "-" : reference === undefined ? "(no reference)" : o.text === reference ? "yes" : `NO: ${JSON.stringify(o.text)}`} |`,
  );
