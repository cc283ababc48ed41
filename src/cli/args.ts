// `rlm`'s options, read by the one argument reader (flags.mjs) and made into what the run
// needs; the engine is chosen by the command-line registry (src/engines/command-line-registry.ts).
// Pure, so it can be tested.
import { FALLBACK_MODES, type FallbackMode } from "../core/fallback-cost.ts";
import { PROMPT_CHOICES, type PromptChoice } from "../core/profiles/types.ts";
import { RUN_MODE_CHOICES, type RunModeRequest } from "../core/run-mode.ts";
import { samplingOf, type Sampling } from "../core/sampling.ts";
import type { EngineChoice } from "../engines/command-line.ts";
import { chooseEngine } from "../engines/command-line-registry.ts";
import { RLM_FLAGS, UsageError, choiceOf, readArgs } from "./flags.mjs";

export { UsageError };
export interface CliOptions {
  contextFiles: string[];
  task: string;
  /** The engine the flags chose (src/engines/command-line-registry.ts) with its options; null with --help or --version. */
  engine: EngineChoice | null;
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

/** Limits where 0 would mean a run that cannot start. */
const AT_LEAST_ONE = ["max-iterations", "max-depth", "max-tokens", "concurrency"] as const;

export function parseCliArgs(argv: string[], env: Record<string, string | undefined> = {}): CliOptions {
  const read = readArgs(RLM_FLAGS, argv, env, { positionals: true });
  const v = read.values;
  const help = v.help;
  const version = v.version;
  const task = v.task ?? read.positionals.join(" ");
  if (!help && !version && !task.trim()) throw new UsageError("--task is required (the question to answer)");
  for (const flag of AT_LEAST_ONE) if (v[flag] === 0) throw new UsageError(`--${flag} must be at least 1`);
  const engine = help || version ? null : chooseEngine(read);
  const trajectory = v["output-trajectory"];
  if (trajectory && !trajectory.endsWith(".jsonl")) {
    throw new UsageError("--output-trajectory must end in .jsonl (the rlm visualizer only opens .jsonl files)");
  }
  if (v["cache-dir"] !== undefined && !v["cache-dir"].trim()) {
    throw new UsageError("--cache-dir needs a directory (use --no-cache to turn the cache off)");
  }
  return {
    contextFiles: v["context-file"],
    task,
    engine,
    maxIterations: v["max-iterations"],
    maxDepth: v["max-depth"],
    maxTokens: v["max-tokens"],
    subMaxTokens: v["sub-max-tokens"],
    maxSubcalls: v["max-subcalls"],
    maxTimeS: v["max-time"],
    cellTimeoutS: v["cell-timeout"],
    concurrency: v.concurrency,
    sampling: samplingOf({ temperature: v.temperature, topP: v["top-p"], seed: v.seed }),
    verbose: v.verbose,
    quiet: v.quiet,
    json: v.json,
    rawOutput: v["raw-output"],
    outputTrajectory: trajectory || undefined,
    prompt: choiceOf("prompt", v.prompt, PROMPT_CHOICES),
    cacheDir: v["cache-dir"],
    noCache: v["no-cache"],
    mode: choiceOf("mode", v.mode, RUN_MODE_CHOICES),
    thinking: v.thinking,
    fallback: choiceOf("fallback", v.fallback, FALLBACK_MODES),
    maxFallbackCalls: v["max-fallback-calls"],
    maxFallbackTokens: v["max-fallback-tokens"],
    help,
    version,
  };
}
