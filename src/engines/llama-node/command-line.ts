// The command line's side of llama.cpp native (node-llama-cpp): `rlm --model-file FILE.gguf`. The
// engine and node-llama-cpp are imported only when a model file is given, so runs on an endpoint
// never load them. The page cannot run this engine (it has wllama instead): it is in the command
// line's registry only.
import { UsageError } from "../../cli/flags.mjs";
import { groupDigits } from "../../core/numbers.ts";
import type { CommandLineEngine, OpenContext, OpenedEngines, ParsedFlags } from "../command-line.ts";
import { ContextWindowTooLargeError, ModelArchitectureError, ModelFileError, ModelTooLargeError } from "../errors.ts";
import type { LlamaRequestStats } from "./index.ts";

/** What opening a local model needs of the flags. */
export interface LocalModelOptions {
  modelFile: string;
  subModelFile?: string;
  threads?: number;
  contextWindow?: number;
  concurrency?: number;
  maxDepth?: number;
  verbose: boolean;
}

export const LLAMA_NODE_COMMAND_LINE: CommandLineEngine = {
  id: "llama-node",
  chosenBy: "model-file",
  flags: ["model-file", "sub-model-file", "threads"],
  refuse: (flag) =>
    flag === "sub-context-window"
      ? "--sub-context-window is for a model server; a local sub-model gets the root's window (capped by what it was trained for)"
      : "--model-file runs the model here: leave out --model, --sub-model and --base-url (use --sub-model-file for a second GGUF)",
  choose(flags) {
    const options = localModelOptions(flags);
    return {
      id: "llama-node",
      options,
      opening: "loading the model file",
      open: (context) => openLocalEngines(options, context),
      isBadOption: isLocalModelRefusal,
    };
  },
};

function localModelOptions({ values: v }: ParsedFlags): LocalModelOptions {
  const modelFile = v["model-file"] ?? "";
  if (!modelFile.trim()) throw new UsageError("--model-file needs the path of a .gguf file");
  if (v.threads === 0) throw new UsageError("--threads must be at least 1");
  if (v["context-window"] === 0) throw new UsageError("--context-window must be at least 1");
  return {
    modelFile,
    subModelFile: v["sub-model-file"] || undefined,
    threads: v.threads,
    contextWindow: v["context-window"],
    concurrency: v.concurrency || undefined,
    maxDepth: v["max-depth"] || undefined,
    verbose: v.verbose === true,
  };
}

/** A --model-file or --context-window that cannot work here: exit 2, like any bad option. */
export function isLocalModelRefusal(err: unknown): err is Error {
  return (
    err instanceof ModelFileError ||
    err instanceof ModelArchitectureError ||
    err instanceof ModelTooLargeError ||
    err instanceof ContextWindowTooLargeError
  );
}

export async function openLocalEngines(options: LocalModelOptions, context: OpenContext): Promise<OpenedEngines> {
  const { openLocalModels } = await import("./index.ts");
  const { stderr, signal, onLoadProgress, onPrefill, testGrammar } = context;
  const verbose = options.verbose ? (line: string) => stderr(`rlm: ${line}\n`) : undefined;
  const local = await openLocalModels(
    {
      modelFile: options.modelFile,
      subModelFile: options.subModelFile,
      threads: options.threads,
      contextWindow: options.contextWindow,
      subCallSlots: options.concurrency,
      childRoots: (options.maxDepth ?? 1) > 1,
      onLoadProgress,
      onPrefill,
      testGrammar,
      onRequest: verbose && ((stats: LlamaRequestStats) => verbose(describeRequest(stats))),
      onLog: verbose && ((line: string) => verbose(`llama.cpp: ${line}`)),
    },
    signal,
  );
  for (const line of local.describe()) verbose?.(line);
  return local;
}

/** "llama.cpp root (sequence 0): 1,234 prompt tokens, 1,200 from its cache, 34 evaluated in 0.2 s; 40 generated in 1.6 s (25 tokens/s)". */
export function describeRequest(s: LlamaRequestStats): string {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const rate = s.generateMs > 0 ? ` (${(s.generatedTokens / (s.generateMs / 1000)).toFixed(1)} tokens/s)` : "";
  return (
    `llama.cpp ${s.role} (sequence ${s.sequence}): ${groupDigits(s.promptTokens)} prompt tokens, ${groupDigits(s.reusedTokens)} from its cache, ` +
    `${groupDigits(s.evaluatedTokens)} evaluated in ${seconds(s.prefillMs)}; ${groupDigits(s.generatedTokens)} generated in ${seconds(s.generateMs)}${rate}`
  );
}
