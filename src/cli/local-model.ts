// `rlm --model-file`: the CLI's side of a local model. The engine (src/engines/llama-node) and
// node-llama-cpp are imported only here, only when a model file is given.
import { ContextWindowTooLargeError, ModelArchitectureError, ModelFileError, ModelTooLargeError } from "../engines/errors.ts";
import type { ChatEngine } from "../engines/types.ts";
import type { LlamaRequestStats, LoadProgress, PrefillProgress } from "../engines/llama-node/index.ts";
import { groupDigits } from "../core/numbers.ts";
import type { CliOptions } from "./args.ts";
import { registeredTestGrammar } from "./test-hook.ts";

export interface LocalEngines {
  root: ChatEngine;
  sub: ChatEngine;
  close(): Promise<void>;
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

/** What opening a local model needs of the options (`rlm` and `rlm bench` share it). */
export type LocalModelOptions = Pick<CliOptions, "subModelFile" | "threads" | "contextWindow" | "concurrency" | "maxDepth" | "verbose"> & {
  modelFile: string;
};

/** What a progress line follows while the model loads and reads its prompts. */
export interface LocalModelWatch {
  onLoadProgress?: (progress: LoadProgress) => void;
  onPrefill?: (progress: PrefillProgress) => void;
}

export async function openLocalEngines(
  options: LocalModelOptions,
  stderr: (s: string) => void,
  signal: AbortSignal,
  watch: LocalModelWatch = {},
): Promise<LocalEngines> {
  const { openLocalModels } = await import("../engines/llama-node/index.ts");
  const verbose = options.verbose ? (line: string) => stderr(`rlm: ${line}\n`) : undefined;
  // Tests only: the grammar hook a preloaded test module registered (test-hook.ts), if any.
  const testGrammar = registeredTestGrammar();
  const local = await openLocalModels(
    {
      modelFile: options.modelFile,
      ...(options.subModelFile ? { subModelFile: options.subModelFile } : {}),
      ...(options.threads ? { threads: options.threads } : {}),
      ...(options.contextWindow ? { contextWindow: options.contextWindow } : {}),
      ...(options.concurrency ? { subCallSlots: options.concurrency } : {}),
      childRoots: (options.maxDepth ?? 1) > 1,
      ...watch,
      ...(testGrammar ? { testGrammar } : {}),
      ...(verbose
        ? {
            onRequest: (stats: LlamaRequestStats) => verbose(describeRequest(stats)),
            onLog: (line: string) => verbose(`llama.cpp: ${line}`),
          }
        : {}),
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
