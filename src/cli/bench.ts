// `rlm bench`: the long-context task suites, RLM against direct answering, on any
// OpenAI-compatible endpoint or a local GGUF run here by llama.cpp (--model-file). Results go to a JSONL file (a rerun resumes it), a summary table,
// SVG charts and one visualizer trajectory per RLM run.
import { registeredTestGrammar } from "./test-hook.ts";
import { mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import { samplingOf } from "../core/sampling.ts";
import { runMetadata } from "../core/trajectory.ts";
import { configWith, type RlmConfig } from "../core/types.ts";
import type { EngineChoice, OpenedEngines } from "../engines/command-line.ts";
import { chooseEngine } from "../engines/command-line-registry.ts";
import {
  BENCH_METHODS,
  DEFAULT_SIZES,
  SUITE_NAMES,
  formatSize,
  formatSummaryTable,
  planTasks,
  runBench,
  summarize,
  type BenchMethod,
  type SuiteName,
} from "../bench/index.ts";
import { JsonlResultStore, defaultCodeRepo, trajectoryWriter, writeBenchReport } from "../bench/node.ts";
import { createNodeRepl } from "../repl/node.ts";
import { nodeHttpFetch } from "../node/http-fetch.ts";
import { BENCH_FLAGS, UsageError, readArgs } from "./flags.mjs";
import type { CliIO } from "./main.ts";

export const BENCH_HELP = `Usage: rlm bench --model NAME [--base-url URL] [options]
       rlm bench --model-file FILE.gguf [options]

Runs the long-context task suites with two methods on the same model: "rlm" (the document in
the REPL) and "vanilla" (the document cut to the window, one call). Writes results.jsonl (a
rerun skips what is done), summary.md, SVG charts and trajectories/ into --out.

  --base-url URL --model NAME --sub-model NAME --api-key KEY --context-window N --no-stream
  --model-file FILE.gguf   a local model run here by llama.cpp instead of a server
                           (--sub-model-file FILE.gguf for sub-calls, --threads N)
  --suites LIST        ${SUITE_NAMES.join(",")} (default: all)
  --sizes LIST         document sizes in characters, e.g. 28K,112K,2M (default: ${DEFAULT_SIZES.map(formatSize).join(",")})
  --methods LIST       vanilla,rlm (default: both)
  --repeats N          tasks per suite and size (default 1)
  --seed N             generator seed (default 1)
  --out DIR            output folder (default bench/out/<model>)
  --max-iterations N --max-depth N --temperature T --concurrency N --max-time S
  --verbose            one line per finished task on stderr
  -h, --help           this help`;

function parseSize(raw: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([kKmM]?)$/.exec(raw.trim());
  if (!m) throw new UsageError(`--sizes: "${raw}" is not a size like 28K or 2M`);
  const n = Number(m[1]) * (m[2]?.toLowerCase() === "k" ? 1_000 : m[2]?.toLowerCase() === "m" ? 1_000_000 : 1);
  if (n < 1000) throw new UsageError(`--sizes: ${raw} is too small (at least 1K characters)`);
  return Math.round(n);
}

function listOf<T extends string>(raw: string | undefined, allowed: readonly T[], flag: string): T[] | undefined {
  if (!raw) return undefined;
  const items = raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const item of items) {
    if (!allowed.includes(item as T)) throw new UsageError(`--${flag}: "${item}" is not one of ${allowed.join(", ")}`);
  }
  return items as T[];
}

export async function benchMain(argv: string[], io: CliIO): Promise<number> {
  let read;
  try {
    read = readArgs(BENCH_FLAGS, argv, io.env);
  } catch (err) {
    io.stderr(`rlm bench: ${err instanceof Error ? err.message : String(err)}\nRun rlm bench --help for the options.\n`);
    return 2;
  }
  const v = read.values;
  if (v.help) {
    io.stdout(`${BENCH_HELP}\n`);
    return 0;
  }
  let plan;
  let methods: BenchMethod[] | undefined;
  let config: RlmConfig;
  let chosen: EngineChoice;
  try {
    chosen = chooseEngine(read);
    const suites = listOf<SuiteName>(v.suites, SUITE_NAMES, "suites");
    methods = listOf<BenchMethod>(v.methods, BENCH_METHODS, "methods");
    const sizes = v.sizes ? v.sizes.split(",").map(parseSize) : undefined;
    const wantsCode = !suites || suites.includes("code");
    plan = {
      suites,
      sizes,
      repeats: v.repeats || undefined,
      seed: v.seed,
      code: wantsCode ? defaultCodeRepo() : undefined,
    };
    // 0 keeps the default, as it always has here.
    config = configWith({
      maxIterations: v["max-iterations"] || undefined,
      maxDepth: v["max-depth"] || undefined,
      maxConcurrentSubcalls: v.concurrency || undefined,
      maxWallTimeMs: v["max-time"] ? v["max-time"] * 1000 : undefined,
      sampling: samplingOf({ temperature: v.temperature }),
    });
  } catch (err) {
    io.stderr(`rlm bench: ${err instanceof Error ? err.message : String(err)}\nRun rlm bench --help for the options.\n`);
    return 2;
  }

  const modelFile = v["model-file"];
  const label = modelFile ? basename(modelFile).replace(/\.gguf$/i, "") : (v.model ?? "");
  const out = v.out ?? join("bench", "out", label.replace(/[^\w.-]+/g, "_"));
  mkdirSync(out, { recursive: true });
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(130);
    io.stderr("\nrlm bench: stopping after the current task; run the same command again to resume.\n");
    controller.abort();
  };
  process.on("SIGINT", onSigint);
  let engines: OpenedEngines | undefined;
  try {
    engines = await chosen.open({
      fetch: nodeHttpFetch,
      stderr: io.stderr,
      signal: controller.signal,
      testGrammar: registeredTestGrammar(),
    });
    const { root, sub } = engines;
    const tasks = planTasks(plan);
    const outcome = await runBench({
      tasks,
      methods,
      rootEngine: root,
      subEngine: sub,
      createRepl: async () => {
        const repl = createNodeRepl();
        await repl.start();
        return repl;
      },
      config,
      store: new JsonlResultStore(join(out, "results.jsonl")),
      signal: controller.signal,
      onRlmResult: trajectoryWriter(join(out, "trajectories"), runMetadata(root, sub, config)),
      onProgress: (p) => {
        if (p.type === "planned") io.stderr(`rlm bench: ${p.total} runs planned, ${p.alreadyDone} already in ${out}/results.jsonl\n`);
        if (p.type === "task-finished" && v.verbose) {
          const r = p.result;
          io.stderr(
            `[${p.done}/${p.total}] ${r.taskId} ${r.method}: score ${r.score.toFixed(2)} in ${(r.timeMs / 1000).toFixed(1)} s (${r.status})\n`,
          );
        }
      },
    });
    const files = writeBenchReport(out, outcome.results);
    io.stdout(`${formatSummaryTable(summarize(outcome.results))}\n\nWrote ${files.join(", ")}\n`);
    if (outcome.stopped) {
      io.stderr("rlm bench: stopped early; run the same command to resume.\n");
      return 1;
    }
    return 0;
  } catch (err) {
    io.stderr(`rlm bench: ${err instanceof Error ? err.message : String(err)}\n`);
    // A model file that is no model, too large or of an unknown family: a bad option, like rlm's.
    return chosen.isBadOption(err) ? 2 : 1;
  } finally {
    process.off("SIGINT", onSigint);
    await engines?.close().catch(() => undefined);
  }
}
