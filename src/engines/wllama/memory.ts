// Will a model fit llama.cpp's memory in the page? wllama's WebAssembly heap is capped at 4 GiB
// (both its Memory64 build and the compat build), and weights, KV cache and compute buffers all
// live in it. A model that cannot fit is refused before loading, with the sum shown. No DOM.
import type { GgufModelInfo } from "./model-file.ts";

export const HEAP_LIMIT_BYTES = 4 * 1024 ** 3;

/**
 * llama.cpp's compute buffers, the output logits and the runtime's own allocations, beyond
 * weights and KV cache. An allowance, not a measurement of each model: the largest seen on the
 * real-size random Qwen GGUFs at 2 × 8K tokens was well under it (bench/RESULTS.md).
 */
export const WORKING_BYTES = 512 * 1024 ** 2;

/**
 * KV cache slots kept per engine: the root conversation and one sub-call, each up to the
 * window. With one slot a sub-call would evict the root's cache and every root turn would be
 * evaluated again from its first token.
 */
export const KV_SLOTS = 2;

export type KvShape = Pick<GgufModelInfo, "layers" | "kvHeads" | "keyLength" | "valueLength">;

/** Bytes of f16 K and V per token of context. */
export function kvBytesPerToken(m: KvShape): number {
  return m.layers * m.kvHeads * (m.keyLength + m.valueLength) * 2;
}

export interface MemoryPlan {
  weightsBytes: number;
  kvBytes: number;
  workingBytes: number;
  totalBytes: number;
  /** Tokens of KV cache allocated (window × slots). */
  kvTokens: number;
  fits: boolean;
  /** The sum in words, e.g. for the refusal. */
  arithmetic: string;
}

function mib(bytes: number): string {
  return `${Math.round(bytes / 1024 ** 2).toLocaleString("en-US")} MiB`;
}

export function planMemory(model: KvShape & { totalBytes: number }, window: number, slots = KV_SLOTS): MemoryPlan {
  const kvTokens = window * slots;
  const perToken = kvBytesPerToken(model);
  const kvBytes = kvTokens * perToken;
  const totalBytes = model.totalBytes + kvBytes + WORKING_BYTES;
  const fits = totalBytes <= HEAP_LIMIT_BYTES;
  const arithmetic =
    `weights ${mib(model.totalBytes)} + KV cache ${kvTokens.toLocaleString("en-US")} tokens (${slots} × ${window.toLocaleString("en-US")}) × ` +
    `${(perToken / 1024).toLocaleString("en-US", { maximumFractionDigits: 1 })} KiB = ${mib(kvBytes)} + working memory ${mib(WORKING_BYTES)} ` +
    `= ${mib(totalBytes)} ${fits ? "≤" : ">"} the ${mib(HEAP_LIMIT_BYTES)} llama.cpp can use in a page`;
  return { weightsBytes: model.totalBytes, kvBytes, workingBytes: WORKING_BYTES, totalBytes, kvTokens, fits, arithmetic };
}

/** The largest window (a multiple of 1024, at most the trained one) that fits, or 0 when none does. */
export function largestFittingWindow(model: KvShape & { totalBytes: number; trainedContext: number }): number {
  const free = HEAP_LIMIT_BYTES - model.totalBytes - WORKING_BYTES;
  if (free <= 0) return 0;
  const tokens = Math.floor(free / (kvBytesPerToken(model) * KV_SLOTS));
  return Math.min(model.trainedContext, Math.floor(tokens / 1024) * 1024);
}

export const WINDOW_CHOICES = [2048, 4096, 8192, 16384, 32768] as const;

/** The window to use when the person has not chosen: 8K, or less when the model or memory says so. */
export function defaultWindow(model: KvShape & { totalBytes: number; trainedContext: number }): number {
  return Math.max(0, Math.min(8192, largestFittingWindow(model)));
}
