// Where a prompt's time goes in the page's llama.cpp (issue 33, "profile before and after"):
// Chromium's sampling profiler (CDP Profiler.start/stop), attached to every worker of the bench
// page (our model worker, wllama's wasm worker and its pthreads), while one prefill runs, for
// wllama's own build and for ours (vendor/llama-wasm). Both wasms keep their function names, so
// the profile names ggml's kernels; the summary is the top functions by self time, all threads
// together. Puppeteer, not Playwright: Playwright opens no CDP session on a worker.
//
// Run: node --import tsx bench/llama-profile.ts [--builds=compat,simd] [--threads=2] [--prompt-words=350]
//        [--weights=q4_0] [--top=15] [--out=bench/out/llama-profile.md]
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import puppeteer, { type CDPSession, type Page } from "puppeteer-core";
import { tinyQwenGguf, type QwenShapeName, type QwenWeights } from "../tests/fixtures/gguf/index.ts";
import type { WllamaBenchApi } from "./browser/wllama-bench.ts";
import { startBenchPages } from "./browser/server.ts";
import { BASE_ARGS, CHROMIUM } from "./lib/chromium.ts";
import { load, today } from "./lib/report.ts";
import { machine } from "./stats.ts";
import { scriptArgs } from "./lib/args.ts";

const args = scriptArgs({
  builds: { type: "string" },
  out: { type: "string" },
  "prompt-words": { type: "string", number: "whole" },
  shape: { type: "string" },
  threads: { type: "string", number: "whole" },
  top: { type: "string", number: "whole" },
  weights: { type: "string" },
});
const SHAPE = (args.shape ?? "qwen2.5-0.5b") as QwenShapeName;
const WEIGHTS = args.weights as QwenWeights | undefined;
// relaxed: our build's relaxed-SIMD wasm, what the page runs in Chromium (as in bench/wllama.ts)
const BUILDS = (args.builds ?? "compat,simd").split(",") as ("default" | "compat" | "simd" | "relaxed")[];
const THREADS = args.threads ?? 2;
const PROMPT_WORDS = args["prompt-words"] ?? 350;
const TOP = args.top ?? 15;
const OUT = args.out ?? "bench/out/llama-profile.md";
const KV_TOKENS = 4096;
/** Microseconds between samples: fine enough for kernels that run for milliseconds. */
const SAMPLE_US = 200;
const PROMPT = Array.from(
  { length: PROMPT_WORDS },
  (_, i) => ["harbour", "ledger", "tide", "keeper", "lamp", "storm", "north"][i % 7],
).join(" ");

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

function call<K extends keyof WllamaBenchApi>(page: Page, name: K, ...args: Parameters<WllamaBenchApi[K]>) {
  return page.evaluate(
    (n, a) => (window as unknown as { wllamaBench: Record<string, (...x: unknown[]) => unknown> }).wllamaBench[n]!(...a),
    name as string,
    args as unknown[],
  ) as Promise<Awaited<ReturnType<WllamaBenchApi[K]>>>;
}

/** Self time (ms) per function name in one profile: each sample is charged the time until the next. */
function selfTimes(profile: Profile): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const out = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const node = byId.get(samples[i]!);
    if (!node) continue;
    const ms = (deltas[i + 1] ?? SAMPLE_US) / 1000;
    out.set(label(node), (out.get(label(node)) ?? 0) + ms);
  }
  return out;
}

function label(node: ProfileNode): string {
  const { functionName, url } = node.callFrame;
  const name = functionName || "(anonymous)";
  return url.startsWith("wasm://") ? `${name} [wasm]` : name;
}

/** Idle and waiting: a thread blocked in Atomics.wait or between tasks is not computing. */
const IDLE =
  /^\((idle|program|garbage collector)\)$|^(wait|Atomics\.wait|emscripten_futex_wait|__timedwait.*|_emscripten_thread_mailbox_await)( \[wasm\])?$/;

/**
 * CDP sessions on every worker under the page, nested ones too (wllama's wasm worker is started
 * by our model worker, its pthreads by the wasm worker): auto-attach, again on each new session.
 */
async function workerSessions(page: Page): Promise<CDPSession[]> {
  const sessions: CDPSession[] = [];
  const watch = async (session: CDPSession) => {
    session.on("sessionattached", (child: CDPSession) => {
      sessions.push(child);
      void watch(child).catch(() => undefined);
    });
    await session.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: false, flatten: true });
  };
  await watch(await page.createCDPSession());
  // attachments arrive as events: wait until the count holds still for a second
  for (let seen = -1; seen !== sessions.length;) {
    seen = sessions.length;
    await new Promise((r) => setTimeout(r, 1000));
  }
  return sessions;
}

async function profileBuild(page: Page, build: string): Promise<string[]> {
  const asked = build === "relaxed" ? "simd" : build;
  const loaded = await call(page, "load", THREADS, KV_TOKENS, asked === "default" ? undefined : (asked as "compat" | "simd"), {
    relaxedSimd: build === "relaxed",
  });
  if (build === "relaxed" && !loaded.relaxedSimd) throw new Error("this browser did not validate relaxed SIMD: the SIMD128 wasm ran");
  await call(page, "prefill", `${Math.random()} warm up`);
  const sessions = await workerSessions(page);
  for (const session of sessions) {
    await session.send("Profiler.enable");
    await session.send("Profiler.setSamplingInterval", { interval: SAMPLE_US });
    await session.send("Profiler.start");
  }
  const timings = await call(page, "prefill", `${Math.random()} ${PROMPT}`);
  const totals = new Map<string, number>();
  const perThread: string[] = [];
  for (const session of sessions) {
    const { profile } = (await session.send("Profiler.stop")) as unknown as { profile: Profile };
    await session.detach().catch(() => undefined); // a nested session detaches with its parent
    const times = selfTimes(profile);
    let busy = 0;
    for (const [name, ms] of times) {
      totals.set(name, (totals.get(name) ?? 0) + ms);
      if (!IDLE.test(name)) busy += ms;
    }
    perThread.push(`${Math.round(busy)} ms`);
  }
  const busyTotal = [...totals].filter(([n]) => !IDLE.test(n)).reduce((a, [, ms]) => a + ms, 0);
  const rows = [...totals].sort((a, b) => b[1] - a[1]).slice(0, TOP);
  const tokS = (timings.promptTokens / timings.promptMs) * 1000;
  const lines = [
    `#### ${build} build (relaxed SIMD ${loaded.relaxedSimd}, compat glue ${loaded.compat}), ${loaded.threads} thread(s): ${timings.promptTokens}-token prefill in ${(timings.promptMs / 1000).toFixed(1)} s (${tokS.toFixed(1)} tok/s)`,
    "",
    `${sessions.length} worker(s) profiled; busy (not idle or waiting) per worker: ${perThread.join(", ")}.`,
    "",
    "| function | self ms | % of busy time |",
    "|---|---|---|",
    ...rows.map(
      ([name, ms]) => `| \`${name}\` | ${Math.round(ms)} | ${IDLE.test(name) ? "(idle)" : `${((ms / busyTotal) * 100).toFixed(1)} %`} |`,
    ),
    "",
  ];
  console.log(lines.join("\n"));
  return lines;
}

const modelPath = await tinyQwenGguf({ shape: SHAPE, ...(WEIGHTS ? { weights: WEIGHTS } : {}) });
const server = await startBenchPages();
const browser = await puppeteer.launch({ executablePath: CHROMIUM, args: BASE_ARGS, headless: true });
const out = [
  `### Where a prefill's time goes in the page's llama.cpp, ${today()}`,
  "",
  `Machine: ${machine()}; load average at start ${load()}. Random-weight GGUF shaped like ${SHAPE} (${WEIGHTS ?? "q8_0"} matrices), ` +
    `a ${PROMPT_WORDS}-word prompt, Chromium's sampling profiler every ${SAMPLE_US} µs on every worker, self time summed over threads.`,
  "",
];
try {
  const page = await browser.newPage();
  await page.goto(`${server.url}wllama.html`);
  await page.waitForFunction(() => "wllamaBench" in window);
  const input = await page.$("#model");
  if (!input) throw new Error("the bench page has no #model input");
  await (input as unknown as { uploadFile(...paths: string[]): Promise<void> }).uploadFile(modelPath);
  await call(page, "store");
  for (const build of BUILDS) out.push(...(await profileBuild(page, build)));
} finally {
  await browser.close();
  await server.close();
}
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, out.join("\n"));
console.log(`written to ${OUT}`);
