// What went wrong when llama.cpp itself refused a file or a context that passed our checks. Its
// reason is only in its log, so the lines logged during the attempt are read here.
import { EngineAbortedError, EngineError, ModelArchitectureError, ModelFileError, ModelTooLargeError } from "../errors.ts";
import { describeModelPlan, mib, type MemoryPlan } from "./memory.ts";
import type { ModelFile } from "./model-file.ts";
import type { LlamaRuntime } from "./runtime.ts";

const UNKNOWN_ARCHITECTURE = /unknown model architecture: '([^']*)'/;

/** The error for a model that llama.cpp did not load, given what it logged meanwhile. */
export function loadRefusal(file: ModelFile, runtime: LlamaRuntime, err: unknown, logged: string[], signal?: AbortSignal): EngineError {
  if (signal?.aborted) return new EngineAbortedError();
  const unknown = logged.map((line) => UNKNOWN_ARCHITECTURE.exec(line)).find(Boolean);
  if (unknown) return new ModelArchitectureError(file.path, unknown[1] ?? file.architecture, runtime.version);
  const reason = logged.filter((line) => /error|failed|invalid/i.test(line)).at(-1) ?? (err instanceof Error ? err.message : String(err));
  return new ModelFileError(file.path, `llama.cpp could not load it (${reason})`, "Download it again, or choose another GGUF.");
}

/** node-llama-cpp measured less free memory than we planned with: say so with our sums. */
export function contextRefusal(err: unknown, runtime: LlamaRuntime, plan: MemoryPlan): unknown {
  if (!(err instanceof runtime.lib.InsufficientMemoryError)) return err;
  return new ModelTooLargeError(
    `${plan.models.map(describeModelPlan).join("; ")} = ${mib(plan.totalBytes)}, and llama.cpp found less free memory than that`,
    "Use a smaller --context-window, a smaller or more quantized model (Q4_K_M), or close other programs.",
  );
}
