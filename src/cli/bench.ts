// `rlm bench`: the long-context task suites, RLM against direct answering, on any
// OpenAI-compatible endpoint. Results go to a JSONL file (a rerun resumes it), a summary table,
// SVG charts and one visualizer trajectory per RLM run.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runMetadata } from "../core/trajectory.ts";
import { DEFAULT_CONFIG, type RlmConfig } from "../core/types.ts";
import { OpenAIEngine } from "../engines/openai.ts";
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
import { UsageError } from "./args.ts";
import type { CliIO } from "./main.ts";

export const BENCH_HELP = `Usage: rlm bench --model NAME [--base-url URL] [options]

Runs the long-context task suites with two methods on the same model: "rlm" (the document in
the REPL) and "vanilla" (the document cut to the window, one call). Writes results.jsonl (a
rerun skips what is done), summary.md, SVG charts and trajectories/ into --out.

  --base-url URL --model NAME --sub-model NAME --api-key KEY --context-window N --no-stream
  --suites LIST        ${SUITE_NAMES.join(",")} (default: all)
  --sizes LIST         document sizes in characters, e.g. 28K,112K,2M (default: ${DEFAULT_SIZES.map(formatSize).join(",")})
  --methods LIST       vanilla,rlm (default: both)
  --repeats N          tasks per suite and size (default 1)
  --seed N             generator seed (default 1)
  --out DIR            output folder (default bench/out/<model>)
  --max-iterations N --max-depth N --temperature T --concurrency N --max-time S
  --verbose            one line per finished task on stderr`;

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

function int(raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${flag} needs a whole number ≥ 0, got "${raw}"`);
  return n;
}

export async function benchMain(argv: string[], io: CliIO): Promise<number> {
  let v;
  try {
    v = parseArgs({
      args: argv,
      options: {
        "base-url": { type: "string" },
        model: { type: "string" },
        "sub-model": { type: "string" },
        "api-key": { type: "string" },
        "context-window": { type: "string" },
        "no-stream": { type: "boolean", default: false },
        suites: { type: "string" },
        sizes: { type: "string" },
        methods: { type: "string" },
        repeats: { type: "string" },
        seed: { type: "string" },
        out: { type: "string" },
        "max-iterations": { type: "string" },
        "max-depth": { type: "string" },
        temperature: { type: "string" },
        concurrency: { type: "string" },
        "max-time": { type: "string" },
        verbose: { type: "boolean", short: "v", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    }).values;
  } catch (err) {
    io.stderr(`rlm bench: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  if (v.help) {
    io.stdout(`${BENCH_HELP}\n`);
    return 0;
  }
  let plan;
  let methods: BenchMethod[] | undefined;
  let config: Partial<RlmConfig>;
  const model = v.model ?? io.env.RLM_MODEL ?? "";
  try {
    if (!model) throw new UsageError("--model is required (or set RLM_MODEL)");
    const suites = listOf<SuiteName>(v.suites, SUITE_NAMES, "suites");
    methods = listOf<BenchMethod>(v.methods, BENCH_METHODS, "methods");
    const sizes = v.sizes ? v.sizes.split(",").map(parseSize) : undefined;
    const repeats = int(v.repeats, "repeats");
    const seed = int(v.seed, "seed");
    const wantsCode = !suites || suites.includes("code");
    plan = {
      ...(suites ? { suites } : {}),
      ...(sizes ? { sizes } : {}),
      ...(repeats ? { repeats } : {}),
      ...(seed !== undefined ? { seed } : {}),
      ...(wantsCode ? { code: defaultCodeRepo() } : {}),
    };
    config = {};
    const iters = int(v["max-iterations"], "max-iterations");
    const depth = int(v["max-depth"], "max-depth");
    const conc = int(v.concurrency, "concurrency");
    const time = int(v["max-time"], "max-time");
    if (iters) config.maxIterations = iters;
    if (depth) config.maxDepth = depth;
    if (conc) config.maxConcurrentSubcalls = conc;
    if (time) config.maxWallTimeMs = time * 1000;
    if (v.temperature !== undefined) config.temperature = Number(v.temperature);
  } catch (err) {
    io.stderr(`rlm bench: ${err instanceof Error ? err.message : String(err)}\nRun rlm bench --help for the options.\n`);
    return 2;
  }

  const out = v.out ?? join("bench", "out", model.replace(/[^\w.-]+/g, "_"));
  mkdirSync(out, { recursive: true });
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(130);
    io.stderr("\nrlm bench: stopping after the current task; run the same command again to resume.\n");
    controller.abort();
  };
  process.on("SIGINT", onSigint);
  try {
    const root = await OpenAIEngine.connect({
      baseUrl: v["base-url"] ?? io.env.RLM_BASE_URL ?? "http://localhost:8000/v1",
      model,
      ...((v["api-key"] ?? io.env.RLM_API_KEY ?? io.env.OPENAI_API_KEY)
        ? { apiKey: (v["api-key"] ?? io.env.RLM_API_KEY ?? io.env.OPENAI_API_KEY)! }
        : {}),
      ...(v["context-window"] ? { contextWindow: Number(v["context-window"]) } : {}),
      stream: v["no-stream"] !== true,
    });
    const sub = v["sub-model"] ? root.withModel(v["sub-model"]) : root;
    const tasks = planTasks(plan);
    const fullConfig: RlmConfig = { ...DEFAULT_CONFIG, ...config };
    const outcome = await runBench({
      tasks,
      ...(methods ? { methods } : {}),
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
      onRlmResult: trajectoryWriter(join(out, "trajectories"), runMetadata(root, sub, fullConfig)),
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
    return 1;
  } finally {
    process.off("SIGINT", onSigint);
  }
}
