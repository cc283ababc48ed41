// Command-line options, in the spirit of mlx_lm.rlm. Parsing is pure so it can be tested.
import { parseArgs } from "node:util";
import { FALLBACK_MODES, type FallbackMode } from "../core/fallback-cost.ts";
import { PROMPT_CHOICES, type PromptChoice } from "../core/profiles/types.ts";
import { RUN_MODE_CHOICES, type RunModeRequest } from "../core/run-mode.ts";
import { samplingOf, type Sampling } from "../core/sampling.ts";

export class UsageError extends Error {
  override name = "UsageError";
}

export interface CliOptions {
  contextFiles: string[];
  task: string;
  baseUrl: string;
  model: string;
  /** --model-file: a local GGUF run in this process by llama.cpp instead of a model server. */
  modelFile?: string;
  /** --sub-model-file: a second local GGUF for sub-calls. */
  subModelFile?: string;
  /** --threads: CPU threads for the local model. */
  threads?: number;
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
  /** --temperature, --top-p, --seed: passed whole to every request. */
  sampling: Sampling;
  stream: boolean;
  verbose: boolean;
  /** --quiet: no progress line on a terminal. */
  quiet: boolean;
  json: boolean;
  /** --raw-output: write the answer and --verbose text to a terminal byte for byte (escape sequences obeyed). */
  rawOutput: boolean;
  outputTrajectory?: string;
  /** Prompt profile: auto (from the model name), guided (≤ 4B), standard, canonical (RLM-trained). */
  prompt?: PromptChoice;
  /** --cache-dir: where the Python snapshot is kept (see cache-dir.mjs for the default). */
  cacheDir?: string;
  /** --no-cache: neither read nor write the snapshot. */
  noCache: boolean;
  /** auto (direct when the document fits the window), rlm, or direct. */
  mode?: RunModeRequest;
  /** Let a Qwen3-style root reason before it writes (off by default). */
  thinking: boolean;
  /** --fallback: may the harness read the document itself when the model cannot drive (ask: within the limits, else ask on a terminal). */
  fallback?: FallbackMode;
  /** --max-fallback-calls / --max-fallback-tokens: the limits of that reading without asking. */
  maxFallbackCalls?: number;
  maxFallbackTokens?: number;
  help: boolean;
  version: boolean;
}

// The help text lives in plain JavaScript so `rlm --help` answers without loading TypeScript.
export { HELP } from "./help.mjs";

function num(name: string, raw: string | undefined, integer = true): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || (integer && !Number.isInteger(value)) || value < 0) {
    throw new UsageError(`--${name} needs a ${integer ? "whole " : ""}number ≥ 0, got "${raw}"`);
  }
  return value;
}

/** A server's address is an http(s) URL: "localhost:8000" parses as a URL of scheme "localhost:", and would fail later as unreachable. */
function checkBaseUrl(raw: string, from: string): void {
  let url: URL | null = null;
  try {
    url = new URL(raw.trim());
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || !url.hostname) {
    throw new UsageError(`${from} must be an http:// or https:// address such as http://localhost:8000/v1, got "${raw}"`);
  }
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
        "model-file": { type: "string" },
        "sub-model-file": { type: "string" },
        threads: { type: "string" },
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
        quiet: { type: "boolean", short: "q", default: false },
        json: { type: "boolean", default: false },
        "raw-output": { type: "boolean", default: false },
        "output-trajectory": { type: "string" },
        prompt: { type: "string" },
        "cache-dir": { type: "string" },
        "no-cache": { type: "boolean", default: false },
        mode: { type: "string" },
        thinking: { type: "boolean", default: false },
        fallback: { type: "string" },
        "max-fallback-calls": { type: "string" },
        "max-fallback-tokens": { type: "string" },
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
  const modelFile = v["model-file"];
  const model = v.model ?? (modelFile ? "" : (env.RLM_MODEL ?? ""));
  if (!help && !version) {
    if (!task.trim()) throw new UsageError("--task is required (the question to answer)");
    if (modelFile !== undefined && !modelFile.trim()) throw new UsageError("--model-file needs the path of a .gguf file");
    if (modelFile && (v.model || v["base-url"] || v["sub-model"])) {
      throw new UsageError(
        "--model-file runs the model here: leave out --model, --sub-model and --base-url (use --sub-model-file for a second GGUF)",
      );
    }
    if (v["sub-model-file"] && !modelFile) throw new UsageError("--sub-model-file goes with --model-file");
    if (v.threads !== undefined && !modelFile) throw new UsageError("--threads is for a local model (--model-file); a server sets its own");
    if (!model && !modelFile) throw new UsageError("--model is required (or set RLM_MODEL), or give a local GGUF with --model-file");
  }
  const trajectory = v["output-trajectory"];
  if (trajectory && !trajectory.endsWith(".jsonl")) {
    throw new UsageError("--output-trajectory must end in .jsonl (the rlm visualizer only opens .jsonl files)");
  }
  const baseUrl = v["base-url"] ?? env.RLM_BASE_URL ?? "http://localhost:8000/v1";
  if (!help && !version && !modelFile) checkBaseUrl(baseUrl, v["base-url"] !== undefined ? "--base-url" : "RLM_BASE_URL");
  const opts: CliOptions = {
    contextFiles: v["context-file"] ?? [],
    task,
    baseUrl,
    model,
    stream: v["no-stream"] !== true,
    verbose: v.verbose === true,
    quiet: v.quiet === true,
    json: v.json === true,
    rawOutput: v["raw-output"] === true,
    noCache: v["no-cache"] === true,
    thinking: v.thinking === true,
    sampling: samplingOf({
      temperature: num("temperature", v.temperature, false),
      topP: num("top-p", v["top-p"], false),
      seed: num("seed", v.seed),
    }),
    help,
    version,
  };
  const apiKey = v["api-key"] ?? env.RLM_API_KEY ?? env.OPENAI_API_KEY;
  if (apiKey) opts.apiKey = apiKey;
  if (v["sub-model"]) opts.subModel = v["sub-model"];
  if (modelFile) opts.modelFile = modelFile;
  if (v["sub-model-file"]) opts.subModelFile = v["sub-model-file"];
  if (trajectory) opts.outputTrajectory = trajectory;
  if (v.prompt !== undefined) {
    if (!(PROMPT_CHOICES as readonly string[]).includes(v.prompt)) {
      throw new UsageError(`--prompt must be one of ${PROMPT_CHOICES.join(", ")}, got "${v.prompt}"`);
    }
    opts.prompt = v.prompt as PromptChoice;
  }
  if (v["cache-dir"] !== undefined) {
    if (!v["cache-dir"].trim()) throw new UsageError("--cache-dir needs a directory (use --no-cache to turn the cache off)");
    opts.cacheDir = v["cache-dir"];
  }
  if (v.mode !== undefined) {
    if (!(RUN_MODE_CHOICES as readonly string[]).includes(v.mode)) {
      throw new UsageError(`--mode must be one of ${RUN_MODE_CHOICES.join(", ")}, got "${v.mode}"`);
    }
    opts.mode = v.mode as RunModeRequest;
  }
  if (v.fallback !== undefined) {
    if (!(FALLBACK_MODES as readonly string[]).includes(v.fallback)) {
      throw new UsageError(`--fallback must be one of ${FALLBACK_MODES.join(", ")}, got "${v.fallback}"`);
    }
    opts.fallback = v.fallback as FallbackMode;
  }
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
    ["threads", "threads", true],
    ["maxFallbackCalls", "max-fallback-calls", true],
    ["maxFallbackTokens", "max-fallback-tokens", true],
  ];
  for (const [key, flag, integer] of numbers) {
    const value = num(flag, v[flag as keyof typeof v] as string | undefined, integer);
    if (value !== undefined) (opts as unknown as Record<string, unknown>)[key] = value;
  }
  if (opts.maxIterations === 0) throw new UsageError("--max-iterations must be at least 1");
  if (opts.maxDepth === 0) throw new UsageError("--max-depth must be at least 1");
  if (opts.maxTokens === 0) throw new UsageError("--max-tokens must be at least 1");
  if (opts.concurrency === 0) throw new UsageError("--concurrency must be at least 1");
  if (opts.threads === 0) throw new UsageError("--threads must be at least 1");
  if (opts.modelFile && opts.contextWindow === 0) throw new UsageError("--context-window must be at least 1");
  if (opts.modelFile && opts.subContextWindow !== undefined) {
    throw new UsageError(
      "--sub-context-window is for a model server; a local sub-model gets the root's window (capped by what it was trained for)",
    );
  }
  return opts;
}
