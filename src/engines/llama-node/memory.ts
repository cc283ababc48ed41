// How much memory a local model needs with a given window, and the window it gets by default.
// Pure arithmetic over numbers read from the GGUF header, so it runs before anything is loaded
// and a refusal can show its sums. The KV cache is per sequence: the root and every sub-call
// slot keep their own window of cells (that is what lets them not evict each other).
import { ContextWindowTooLargeError, ModelTooLargeError } from "../errors.ts";
import { groupDigits } from "../../core/numbers.ts";

/** What the plan needs to know about one model file. */
export interface ModelCosts {
  /** A short name for sums ("qwen2.5-0.5b-instruct-q4_k_m"). */
  label: string;
  /** Bytes of the weights (all tensors), mapped from the file. */
  weightsBytes: number;
  /** KV cache bytes per token per sequence (f16 keys and values, every layer). */
  kvBytesPerToken: number;
  /** The window the model was trained for (`<arch>.context_length`). */
  trainedContext: number;
  /**
   * Everything a context needs besides its KV cache (compute buffers, logits), from
   * node-llama-cpp's estimate for that window and sequence count.
   */
  computeBytes(window: number, sequences: number): number;
}

/** One model's share of a plan. */
export interface ModelPlan {
  costs: ModelCosts;
  window: number;
  sequences: number;
  kvBytes: number;
  computeBytes: number;
  totalBytes: number;
}

export interface MemoryPlan {
  /** The root model's window (the sub-model's is the same when it is the same model). */
  window: number;
  /** One entry per distinct model: the root's first. */
  models: ModelPlan[];
  totalBytes: number;
  availableBytes: number;
  /** Why the window is what it is, for --verbose. */
  reason: string;
}

export interface PlanRequest {
  root: ModelCosts;
  /** A separate sub-call model, or undefined when sub-calls use the root model. */
  sub?: ModelCosts;
  /** Sequences the root keeps (1, or 2 when child RLMs also need the root model). */
  rootSequences: number;
  /** Sub-call slots wanted (each its own sequence); fewer are given if memory is short, never fewer than 1. */
  subSequences: number;
  /** --context-window, if given. */
  requestedWindow?: number;
  availableBytes: number;
}

/** The default window leaves this share of available memory to Python, the documents and the OS. */
export const DEFAULT_MEMORY_SHARE = 0.8;
/** Below this a default window is not worth having: the RLM's prompt alone is ~1–2K tokens. */
export const MIN_WINDOW = 2048;
/** llama.cpp rounds a context up to a multiple of 256 cells. */
const CELL_ALIGN = 256;

export function mib(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
  if (bytes >= 1024 ** 2) return `${Math.round(bytes / 1024 ** 2)} MiB`;
  return `${Math.max(1, Math.round(bytes / 1024))} KiB`;
}

function perToken(bytes: number): string {
  return bytes >= 1024 ? `${groupDigits(Math.round(bytes / 1024))} KiB` : `${bytes} B`;
}

function modelPlan(costs: ModelCosts, window: number, sequences: number): ModelPlan {
  const kvBytes = costs.kvBytesPerToken * window * sequences;
  const computeBytes = Math.max(0, costs.computeBytes(window, sequences) - kvBytes);
  return { costs, window, sequences, kvBytes, computeBytes, totalBytes: costs.weightsBytes + kvBytes + computeBytes };
}

/** "weights 500 MiB + KV cache 12 KiB/token × 32,768 tokens × 5 sequences (1.9 GiB) + compute 300 MiB". */
export function describeModelPlan(p: ModelPlan): string {
  const seqs = p.sequences === 1 ? "" : ` × ${p.sequences} sequences`;
  return (
    `weights ${mib(p.costs.weightsBytes)} + KV cache ${perToken(p.costs.kvBytesPerToken)}/token × ${groupDigits(p.window)} tokens${seqs} ` +
    `(${mib(p.kvBytes)}) + compute buffers ${mib(p.computeBytes)}`
  );
}

function describeSum(models: ModelPlan[], availableBytes: number): string {
  const total = models.reduce((s, m) => s + m.totalBytes, 0);
  const parts = models.map((m) => (models.length > 1 ? `${m.costs.label}: ${describeModelPlan(m)}` : describeModelPlan(m)));
  return `${parts.join("; ")} = ${mib(total)}, and this machine has ${mib(availableBytes)} available`;
}

function build(request: PlanRequest, window: number, subSequences: number): ModelPlan[] {
  if (!request.sub) return [modelPlan(request.root, window, request.rootSequences + subSequences)];
  const subWindow = Math.min(window, request.sub.trainedContext);
  return [modelPlan(request.root, window, request.rootSequences), modelPlan(request.sub, subWindow, subSequences)];
}

const sum = (models: ModelPlan[]) => models.reduce((s, m) => s + m.totalBytes, 0);

/**
 * The window and sub-call slots to run with. An explicit window is kept or refused (never
 * silently shrunk); the default is the trained window, with sub-call slots and then the window
 * reduced until it fits in `DEFAULT_MEMORY_SHARE` of available memory.
 */
export function planMemory(request: PlanRequest): MemoryPlan {
  const trained = request.root.trainedContext;
  const fits = (models: ModelPlan[], budget: number) => sum(models) <= budget;
  const plan = (window: number, subSequences: number, reason: string): MemoryPlan => {
    const models = build(request, window, subSequences);
    return { window, models, totalBytes: sum(models), availableBytes: request.availableBytes, reason };
  };

  if (request.requestedWindow !== undefined) {
    const window = request.requestedWindow;
    if (window > trained) throw new ContextWindowTooLargeError(window, trained);
    for (let slots = request.subSequences; slots >= 1; slots--) {
      if (fits(build(request, window, slots), request.availableBytes)) {
        const fewer = slots < request.subSequences ? `; ${slots} sub-call slot(s) instead of ${request.subSequences} to fit memory` : "";
        return plan(window, slots, `--context-window ${groupDigits(window)}${fewer}`);
      }
    }
    throw new ModelTooLargeError(
      describeSum(build(request, window, 1), request.availableBytes),
      `Use a smaller --context-window (the KV cache grows with it), a smaller or more quantized model (Q4_K_M), or close other programs.`,
    );
  }

  const budget = request.availableBytes * DEFAULT_MEMORY_SHARE;
  const share = `${Math.round(DEFAULT_MEMORY_SHARE * 100)} % of the ${mib(request.availableBytes)} available`;
  for (let slots = request.subSequences; slots >= 1; slots--) {
    if (fits(build(request, trained, slots), budget)) {
      const fewer = slots < request.subSequences ? ` with ${slots} sub-call slot(s) instead of ${request.subSequences}` : "";
      return plan(trained, slots, `the model's trained window${fewer}, which fits in ${share}`);
    }
  }
  for (
    let window = Math.floor(trained / 2 / CELL_ALIGN) * CELL_ALIGN;
    window >= MIN_WINDOW;
    window = Math.floor(window / 2 / CELL_ALIGN) * CELL_ALIGN
  ) {
    if (fits(build(request, window, 1), budget)) {
      return plan(window, 1, `capped from the trained ${groupDigits(trained)} tokens so weights and KV cache fit in ${share}`);
    }
  }
  throw new ModelTooLargeError(
    describeSum(build(request, Math.min(MIN_WINDOW, trained), 1), request.availableBytes),
    "Even a 2,048-token window does not fit: use a smaller or more quantized model (Q4_K_M), or close other programs.",
  );
}
