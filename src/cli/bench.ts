// `rlm bench`: the long-context task suites, RLM against direct answering, on any
// OpenAI-compatible endpoint or a local GGUF run here by llama.cpp (--model-file). Results go to a JSONL file (a rerun resumes it), a summary table,
// SVG charts and one visualizer trajectory per RLM run.
import { mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { runMetadata } from "../core/trajectory.ts";
import { DEFAULT_CONFIG, type RlmConfig } from "../core/types.ts";
import { OpenAIEngine } from "../engines/openai.ts";
import type { ChatEngine } from "../engines/types.ts";
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
import { isLocalModelRefusal, openLocalEngines, type LocalModelOptions } from "./local-model.ts";
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
        "model-file": { type: "string" },
        "sub-model-file": { type: "string" },
        threads: { type: "string" },
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
  const modelFile = v["model-file"];
  const model = v.model ?? (modelFile ? "" : (io.env.RLM_MODEL ?? ""));
  let local: LocalModelOptions | undefined;
  try {
    local = localModelOptions(v, modelFile);
    if (!model && !local) throw new UsageError("--model is required (or set RLM_MODEL), or give a local GGUF with --model-file");
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
    if (v.temperature !== undefined) config.sampling = { temperature: Number(v.temperature) };
  } catch (err) {
    io.stderr(`rlm bench: ${err instanceof Error ? err.message : String(err)}\nRun rlm bench --help for the options.\n`);
    return 2;
  }

  const label = local ? basename(local.modelFile).replace(/\.gguf$/i, "") : model;
  const out = v.out ?? join("bench", "out", label.replace(/[^\w.-]+/g, "_"));
  mkdirSync(out, { recursive: true });
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(130);
    io.stderr("\nrlm bench: stopping after the current task; run the same command again to resume.\n");
    controller.abort();
  };
  process.on("SIGINT", onSigint);
  let engines: BenchEngines | undefined;
  try {
    engines = local ? await openLocalEngines(local, io.stderr, controller.signal) : await connectEndpoint(v, model, io.env);
    const { root, sub } = engines;
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
    // A model file that is no model, too large or of an unknown family: a bad option, like rlm's.
    return isLocalModelRefusal(err) ? 2 : 1;
  } finally {
    process.off("SIGINT", onSigint);
    await engines?.close().catch(() => undefined);
  }
}

interface BenchEngines {
  root: ChatEngine;
  sub: ChatEngine;
  close(): Promise<void>;
}

type BenchValues = Record<string, string | boolean | undefined>;

/** --model-file and the options that go with it, or undefined for an endpoint; refuses mixtures. */
function localModelOptions(v: BenchValues, modelFile: string | undefined): LocalModelOptions | undefined {
  const text = (flag: string) => (typeof v[flag] === "string" ? (v[flag] as string) : undefined);
  if (modelFile === undefined) {
    for (const flag of ["sub-model-file", "threads"])
      if (text(flag) !== undefined) throw new UsageError(`--${flag} goes with --model-file`);
    return undefined;
  }
  if (!modelFile.trim()) throw new UsageError("--model-file needs the path of a .gguf file");
  if (text("model") || text("base-url") || text("sub-model")) {
    throw new UsageError(
      "--model-file runs the model here: leave out --model, --sub-model and --base-url (use --sub-model-file for a second GGUF)",
    );
  }
  const threads = int(text("threads"), "threads");
  const window = int(text("context-window"), "context-window");
  const concurrency = int(text("concurrency"), "concurrency");
  if (threads === 0) throw new UsageError("--threads must be at least 1");
  if (window === 0) throw new UsageError("--context-window must be at least 1");
  return {
    modelFile,
    verbose: v.verbose === true,
    ...(text("sub-model-file") ? { subModelFile: text("sub-model-file")! } : {}),
    ...(threads ? { threads } : {}),
    ...(window ? { contextWindow: window } : {}),
    ...(concurrency ? { concurrency } : {}),
    ...(int(text("max-depth"), "max-depth") ? { maxDepth: int(text("max-depth"), "max-depth")! } : {}),
  };
}

async function connectEndpoint(v: BenchValues, model: string, env: CliIO["env"]): Promise<BenchEngines> {
  const text = (flag: string) => (typeof v[flag] === "string" ? (v[flag] as string) : undefined);
  const apiKey = text("api-key") ?? env.RLM_API_KEY ?? env.OPENAI_API_KEY;
  const root = await OpenAIEngine.connect({
    baseUrl: text("base-url") ?? env.RLM_BASE_URL ?? "http://localhost:8000/v1",
    model,
    ...(apiKey ? { apiKey } : {}),
    ...(text("context-window") ? { contextWindow: Number(text("context-window")) } : {}),
    stream: v["no-stream"] !== true,
  });
  const sub = text("sub-model") ? root.withModel(text("sub-model")!) : root;
  return { root, sub, close: async () => undefined };
}
