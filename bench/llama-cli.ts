// `rlm --model-file` speed: llama.cpp on the CPU through node-llama-cpp, on a random-weight GGUF
// shaped exactly like Qwen2.5-0.5B-Instruct (random weights cost llama.cpp what real ones do).
//   A. Prefill and decode tokens/s at 1 and 2 threads (Q8_0, and Q4_0 for a smaller quant), and
//      decode under a grammar (what scripts the random model below), in interleaved rounds.
//      Ratios are to Q8_0 at 1 thread, measured in the same run.
//   B. One whole scripted RLM answer over a 1 MB document: six root turns and eight sub-calls of
//      ~2,000 tokens each, through RlmSession, real Pyodide and real llama.cpp, with the time split
//      into the root's prefill and generation, the sub-calls' and Python's.
// wllama (llama.cpp in wasm) is not measured here: it does not run in Node 20 (see RESULTS.md).
//
// Run: npm run bench:llama [-- --runs=3 --rlm-threads=1 --no-rlm]   (--write replaces the section in bench/RESULTS.md)
import { openLocalModels, type LlamaRequestStats } from "../src/engines/llama-node/index.ts";
import { exactReplyGrammar, tinyQwenGguf, type QwenWeights } from "../tests/fixtures/gguf/index.ts";
import { CLI_SECTION, load, today, writeResultsSection } from "./lib/report.ts";
import { nativeScriptedAnswer } from "./lib/native-answer.ts";
import { CHUNK_CHARS, restMs } from "./lib/scripted-answer.ts";
import { machine, summarize } from "./stats.ts";
import { scriptArgs } from "./lib/args.ts";

const args = scriptArgs({
  "no-rlm": { type: "boolean" },
  "rlm-threads": { type: "string", number: "whole" },
  runs: { type: "string", number: "whole" },
});
const RUNS = args.runs ?? 3;
/** Threads for the whole scripted answer (default 1: on a shared 2-core machine two fight other work and lose). */
const RLM_THREADS = args["rlm-threads"] ?? 1;
const PROMPT_TOKENS = 512;
const DECODE_TOKENS = 48;

interface Throughput {
  prefill: number[];
  decode: number[];
}

interface Config {
  label: string;
  weights: QwenWeights;
  threads: number;
  grammar: boolean;
}

const CONFIGS: Config[] = [
  { label: "Q8_0, 1 thread", weights: "q8_0", threads: 1, grammar: false },
  { label: "Q8_0, 2 threads", weights: "q8_0", threads: 2, grammar: false },
  { label: "Q4_0, 1 thread", weights: "q4_0", threads: 1, grammar: false },
  { label: "Q4_0, 2 threads", weights: "q4_0", threads: 2, grammar: false },
  { label: "Q8_0, 1 thread, decode under a grammar", weights: "q8_0", threads: 1, grammar: true },
];

/**
 * Tokens/s of a prefill of PROMPT_TOKENS and a greedy decode of DECODE_TOKENS, for every
 * configuration in turn, RUNS rounds: interleaved, so other work on a shared machine falls on all
 * of them alike. A different first word each time, so no run reuses another's cache.
 */
async function throughputs(): Promise<Throughput[]> {
  const results = CONFIGS.map((): Throughput => ({ prefill: [], decode: [] }));
  const samples: LlamaRequestStats[] = [];
  const opened = [];
  for (const c of CONFIGS) {
    opened.push(
      await openLocalModels({
        modelFile: await tinyQwenGguf({ shape: "qwen2.5-0.5b", weights: c.weights }),
        contextWindow: 2048,
        subCallSlots: 1,
        threads: c.threads,
        onRequest: (s) => samples.push(s),
        ...(c.grammar ? { testGrammar: () => exactReplyGrammar("The answer is on line 42 of the document. ".repeat(4)) } : {}),
      }),
    );
  }
  try {
    for (let run = 0; run < RUNS; run++) {
      for (const [i, local] of opened.entries()) {
        console.log(`round ${run + 1}/${RUNS}: ${CONFIGS[i]!.label} (load ${load()})`);
        const content = `Run ${run}. ` + "The quick brown fox jumps over the lazy dog. ".repeat(Math.ceil(PROMPT_TOKENS / 10));
        samples.length = 0;
        await local.root.complete({
          messages: [{ role: "user", content }],
          maxTokens: DECODE_TOKENS,
          sampling: { temperature: 0 },
          thinking: false,
        });
        const s = samples[0]!;
        results[i]!.prefill.push(s.evaluatedTokens / (s.prefillMs / 1000));
        results[i]!.decode.push(s.generatedTokens / (s.generateMs / 1000));
      }
    }
  } finally {
    for (const local of opened) await local.close();
  }
  return results;
}

const med = (xs: number[]) => summarize(xs).median;
const tps = (xs: number[]) => {
  const s = summarize(xs);
  return `${s.median.toFixed(0)} (${s.p10.toFixed(0)}–${s.p90.toFixed(0)})`;
};

async function main(): Promise<void> {
  const lines: string[] = [];
  const out = (s = "") => {
    lines.push(s);
    console.log(s);
  };
  const startLoad = load();
  const measured = await throughputs();
  const rows = CONFIGS.map((c, i): [string, Throughput] => [c.label, measured[i]!]);
  const base = rows[0]![1];
  out(`Run ${today()}: ${machine()}; load average ${startLoad} at the start (the machine is shared: other work shows in the spreads).`);
  out(
    `Random-weight GGUF with Qwen2.5-0.5B-Instruct's exact shape (24 layers, 896 wide, 14 heads / 2 KV heads, 151,936 vocabulary, tied embeddings; Q8_0 file 531 MB), node-llama-cpp 3.21.1 (llama.cpp's prebuilt CPU build), flash attention on; ${PROMPT_TOKENS}-token prompt, ${DECODE_TOKENS} tokens generated greedily, ${RUNS} interleaved rounds, median (p10–p90); load average ${load()} at the end.`,
  );
  out();
  out("| configuration | prefill tokens/s | × baseline | decode tokens/s | × baseline |");
  out("|---|---|---|---|---|");
  for (const [label, t] of rows) {
    out(
      `| ${label}${t === base ? " (baseline)" : ""} | ${tps(t.prefill)} | ${(med(t.prefill) / med(base.prefill)).toFixed(2)} | ${tps(t.decode)} | ${(med(t.decode) / med(base.decode)).toFixed(2)} |`,
    );
  }
  out();
  out(
    "wllama 3.13 in Node: not measured, because it does not run there. Its default build needs JSPI's current API (`WebAssembly.Suspending`, `WebAssembly.promising`) and Memory64; Node 20's V8 11.3 has only the old `WebAssembly.Suspender` behind a flag. Its compat build (wasm32 + Asyncify) would need the browser's Worker (a module worker from a Blob URL, spawning pthread workers from Blob URLs), which Node's `worker_threads` does not provide, and `new Wllama()` already stops at \"No supported storage backend found\" (it wants OPFS or Cache Storage). wllama ships no Node entry; in the page it is the other engineer's engine (issue 26, part 1).",
  );

  if (!args["no-rlm"]) {
    console.log(`scripted RLM answer (load ${load()})`);
    const r = await nativeScriptedAnswer(RLM_THREADS);
    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    const python = restMs(r.totalMs, r);
    out();
    out(
      `One whole scripted RLM answer over a 1 MB document (Q8_0, ${RLM_THREADS} thread(s), window ${r.window.toLocaleString("en-US")} tokens from the file, each sub-call on its own KV sequence): ${r.rootTurns} root turns and ${r.subcalls} sub-calls of ~${(CHUNK_CHARS / 4).toLocaleString("en-US")} tokens each, the replies forced by a grammar${r.abandoned ? ` (${r.abandoned} request(s) the loop stopped and made again are left out of the parts)` : ""}. Load average ${load()} at the end.`,
    );
    out();
    out("| part | time | tokens |");
    out("|---|---|---|");
    out(`| whole answer | **${s(r.totalMs)}** | ${r.generated.toLocaleString("en-US")} generated in all |`);
    out(
      `| root prefill | ${s(r.rootPrefillMs)} | ${r.rootEvaluated.toLocaleString("en-US")} evaluated of ${r.rootPrompt.toLocaleString("en-US")} prompt tokens (the rest from its cache) |`,
    );
    out(`| root generation | ${s(r.rootGenerateMs)} | |`);
    out(`| sub-call prefill | ${s(r.subPrefillMs)} | ${r.subPrompt.toLocaleString("en-US")} prompt tokens |`);
    out(`| sub-call generation | ${s(r.subGenerateMs)} | |`);
    out(`| Python, the loop, the rest | ${s(python)} | |`);
  }

  if (args.write) writeResultsSection(CLI_SECTION, lines.join("\n"));
}

await main();
