// Command-line options, in the spirit of mlx_lm.rlm. Parsing is pure so it can be tested.
import { parseArgs } from "node:util";

export class UsageError extends Error {
  override name = "UsageError";
}

export interface CliOptions {
  contextFiles: string[];
  task: string;
  baseUrl: string;
  model: string;
  subModel?: string;
  apiKey?: string;
  contextWindow?: number;
  subContextWindow?: number;
  maxIterations?: number;
  maxDepth?: number;
  maxTokens?: number;
  subMaxTokens?: number;
  maxSubcalls?: number;
  maxTimeS?: number;
  cellTimeoutS?: number;
  concurrency?: number;
  temperature?: number;
  topP?: number;
  seed?: number;
  stream: boolean;
  verbose: boolean;
  json: boolean;
  outputTrajectory?: string;
  help: boolean;
  version: boolean;
}

export const HELP = `Usage: rlm --task "question" [--context-file PATH ...] --model NAME [options]
       rlm bench --model NAME [options]     (task suites, RLM vs direct answering; rlm bench --help)

Answers a question about documents far larger than the model's window: the documents become
the Python variable \`context\` in a sandboxed Pyodide REPL, and the model explores them with code
and sub-calls. Reads the document from stdin when no --context-file is given.

Model server (any OpenAI-compatible endpoint: vLLM, Ollama, llama.cpp server, ...):
  --base-url URL            default $RLM_BASE_URL or http://localhost:8000/v1
  --model NAME              root model (default $RLM_MODEL)
  --sub-model NAME          model for llm_query sub-calls (default: the root model)
  --api-key KEY             default $RLM_API_KEY or $OPENAI_API_KEY
  --context-window N        root window in tokens (default: read from /v1/models, else 8192)
  --sub-context-window N    sub-model window in tokens
  --no-stream               ask for plain JSON replies instead of SSE

Input and output:
  --context-file PATH       a document; repeat for several (context becomes a dict path -> text)
  --task TEXT               the question
  --output-trajectory P     write the run as JSONL for the official rlm visualizer (.jsonl)
  --json                    print {answer, status, usage, sources, ...} as JSON instead of the answer
  --verbose                 show each step live on stderr, then the answer's sources

Budgets and sampling:
  --max-iterations N        root turns (default 20)
  --max-depth N             1: rlm_query is a plain sub-call; 2: one level of child RLMs (default 1)
  --max-tokens N            tokens per root turn (default: a quarter of the window)
  --sub-max-tokens N        tokens per sub-call reply
  --max-subcalls N          sub-calls per question (default 200)
  --max-time S              seconds per question (default 900)
  --cell-timeout S          seconds per code cell (default 60)
  --concurrency N           sub-calls in flight at once (default 4)
  --temperature T  --top-p P  --seed N

  -h, --help                this help
  --version                 the version
Exit status: 0 with an answer, 1 when the run failed or ended without one, 2 on bad options.`;

function num(name: string, raw: string | undefined, integer = true): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || (integer && !Number.isInteger(value)) || value < 0) {
    throw new UsageError(`--${name} needs a ${integer ? "whole " : ""}number ≥ 0, got "${raw}"`);
  }
  return value;
}

export function parseCliArgs(argv: string[], env: Record<string, string | undefined> = {}): CliOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        "context-file": { type: "string", multiple: true },
        task: { type: "string" },
        "base-url": { type: "string" },
        model: { type: "string" },
        "sub-model": { type: "string" },
        "api-key": { type: "string" },
        "context-window": { type: "string" },
        "sub-context-window": { type: "string" },
        "max-iterations": { type: "string" },
        "max-depth": { type: "string" },
        "max-tokens": { type: "string" },
        "sub-max-tokens": { type: "string" },
        "max-subcalls": { type: "string" },
        "max-time": { type: "string" },
        "cell-timeout": { type: "string" },
        concurrency: { type: "string" },
        temperature: { type: "string" },
        "top-p": { type: "string" },
        seed: { type: "string" },
        "no-stream": { type: "boolean", default: false },
        verbose: { type: "boolean", short: "v", default: false },
        json: { type: "boolean", default: false },
        "output-trajectory": { type: "string" },
        help: { type: "boolean", short: "h", default: false },
        version: { type: "boolean", default: false },
      },
    });
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  const v = parsed.values;
  const help = v.help === true;
  const version = v.version === true;
  const task = v.task ?? parsed.positionals.join(" ");
  const model = v.model ?? env.RLM_MODEL ?? "";
  if (!help && !version) {
    if (!task.trim()) throw new UsageError("--task is required (the question to answer)");
    if (!model) throw new UsageError("--model is required (or set RLM_MODEL)");
  }
  const trajectory = v["output-trajectory"];
  if (trajectory && !trajectory.endsWith(".jsonl")) {
    throw new UsageError("--output-trajectory must end in .jsonl (the rlm visualizer only opens .jsonl files)");
  }
  const opts: CliOptions = {
    contextFiles: v["context-file"] ?? [],
    task,
    baseUrl: v["base-url"] ?? env.RLM_BASE_URL ?? "http://localhost:8000/v1",
    model,
    stream: v["no-stream"] !== true,
    verbose: v.verbose === true,
    json: v.json === true,
    help,
    version,
  };
  const apiKey = v["api-key"] ?? env.RLM_API_KEY ?? env.OPENAI_API_KEY;
  if (apiKey) opts.apiKey = apiKey;
  if (v["sub-model"]) opts.subModel = v["sub-model"];
  if (trajectory) opts.outputTrajectory = trajectory;
  const numbers: Array<[keyof CliOptions, string, boolean]> = [
    ["contextWindow", "context-window", true],
    ["subContextWindow", "sub-context-window", true],
    ["maxIterations", "max-iterations", true],
    ["maxDepth", "max-depth", true],
    ["maxTokens", "max-tokens", true],
    ["subMaxTokens", "sub-max-tokens", true],
    ["maxSubcalls", "max-subcalls", true],
    ["maxTimeS", "max-time", false],
    ["cellTimeoutS", "cell-timeout", false],
    ["concurrency", "concurrency", true],
    ["temperature", "temperature", false],
    ["topP", "top-p", false],
    ["seed", "seed", true],
  ];
  for (const [key, flag, integer] of numbers) {
    const value = num(flag, v[flag as keyof typeof v] as string | undefined, integer);
    if (value !== undefined) (opts as unknown as Record<string, unknown>)[key] = value;
  }
  if (opts.maxIterations === 0) throw new UsageError("--max-iterations must be at least 1");
  if (opts.maxDepth === 0) throw new UsageError("--max-depth must be at least 1");
  if (opts.concurrency === 0) throw new UsageError("--concurrency must be at least 1");
  return opts;
}
