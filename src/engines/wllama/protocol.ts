// The llama.cpp (wllama) worker's API as seen through Comlink: one interface, implemented by
// workers/browser/wllama.worker.ts and called by WllamaWorkerClient. Plain data only; callbacks are
// top-level arguments (Comlink honours Comlink.proxy only there).
import type { NamedBlob } from "./model-file.ts";
import type { PartialDownload, StoredModel } from "./model-store.ts";
import type { WllamaLoadProgress } from "./load-progress.ts";
import type { Sampling } from "../../core/sampling.ts";

/** Where the page serves llama.cpp's WebAssembly (copied at build; never a CDN). Absolute URLs. */
export interface WllamaAssets {
  /** The default build: Memory64 + JSPI (Chromium, Firefox 153+). */
  wasm: string;
  /** The compat build (wasm32 + Asyncify) for browsers without JSPI or Memory64 (WebKit). */
  compatWasm: string;
  compatWorker: string;
  /**
   * Our own wasm32 + Asyncify build with ggml's SIMD128 kernels (scripts/build-llama-wasm.sh),
   * driven by the same wllama JavaScript; needs WebAssembly SIMD (every current browser has it).
   */
  simdWasm: string;
  simdWorker: string;
  /**
   * The same build with the prompt GEMM's Q4_0, Q5_0 and Q4_K tiles on relaxed SIMD's dot product
   * (scripts/build-llama-wasm-relaxed.sh), run by simdWorker's glue where the browser validates
   * relaxed SIMD (Chromium, Firefox 153); simdWasm everywhere else (WebKit).
   */
  relaxedWasm: string;
}

export interface WllamaEnvironment {
  jspi: boolean;
  memory64: boolean;
  /** The compat build is needed (no JSPI or no Memory64). */
  compat: boolean;
  crossOriginIsolated: boolean;
  hardwareConcurrency: number;
  /** llama.cpp's version inside wllama, e.g. "b12211-7d7f028". */
  libllama: string;
}

export interface WllamaLoadRequest {
  /** A model kept in the browser (model-store.ts); its parts are read from disk in slices. */
  modelId: string;
  /** Tokens of KV cache in all (window × slots). */
  kvTokens: number;
  /** Sequences served at once (llama-server's n_parallel); each keeps its own cached prompt. */
  slots: number;
  threads: number;
  assets: WllamaAssets;
  /**
   * "compat": wllama's wasm32 + Asyncify build even where the default one runs (bench/wllama.ts
   * measures both on one browser). "simd": our SIMD128 build (assets.simdWasm). Absent:
   * wllama's choice, the default build where it runs.
   */
  build?: "compat" | "simd";
  /**
   * With build "simd": false runs the SIMD128 wasm even where the browser has relaxed SIMD (the
   * bench and the agreement test measure both). Absent or true: the relaxed wasm wherever
   * WebAssembly validates relaxed SIMD, the SIMD128 one elsewhere.
   */
  relaxedSimd?: boolean;
  /** llama.cpp's KV cache element type for K and V; absent: llama.cpp's default (f16). A quantized V needs flash attention. */
  kvCacheType?: WllamaKvCacheType;
  /** Flash attention on or off; absent: llama.cpp's default ("auto", on where the backend has it). */
  flashAttention?: boolean;
}

/** The KV cache types wllama's glue accepts (cpp/wllama-context.h kv_cache_type_from_str). */
export type WllamaKvCacheType = "f32" | "f16" | "q8_0" | "q4_0" | "q4_1" | "q5_0" | "q5_1";

export interface WllamaLoadOutcome {
  seconds: number;
  threads: number;
  multiThread: boolean;
  compat: boolean;
  /** Our build with ggml's SIMD128 kernels ran it (request.build "simd"). */
  simd: boolean;
  /** Our build's relaxed-SIMD wasm ran it (assets.relaxedWasm). */
  relaxedSimd: boolean;
  kvTokens: number;
  trainedContext: number;
  hasChatTemplate: boolean;
  /** llama.cpp's own lines on the memory it took (model, KV cache and compute buffers), as logged at load. */
  memoryLog: string[];
}

export interface WllamaMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface WllamaCompletionRequest {
  /** Chosen by the caller, so cancel(id) can reach a request that has not returned yet. */
  id: number;
  messages: WllamaMessage[];
  maxTokens?: number;
  /** Temperature, top-p, seed as one value (src/core/sampling.ts); absent: the engine's defaults. */
  sampling?: Sampling;
  stop?: string[];
  /** Qwen3's enable_thinking, for templates that have it. */
  thinking?: boolean;
  /** GBNF: tests only (see src/engines/test-grammar.ts); never set from the page's settings. */
  grammar?: string;
  /** Generate maxTokens whatever the model says (the benchmark's decode runs); never set by the engine. */
  ignoreEos?: boolean;
}

/** llama.cpp's own count of what a request cost (llama-server `timings`). */
export interface WllamaTimings {
  /** Prompt tokens taken from the slot's KV cache, not evaluated again. */
  cachedTokens: number;
  /** Prompt tokens evaluated by this request. */
  promptTokens: number;
  promptMs: number;
  predictedTokens: number;
  predictedMs: number;
}

export interface WllamaCompletionResult {
  text: string;
  finishReason: string | null;
  timings: WllamaTimings | null;
  /** usage.prompt_tokens (the whole prompt) and completion_tokens, when llama.cpp sent them. */
  usage: { promptTokens: number; completionTokens: number } | null;
}

export interface WllamaWorkerApi {
  environment(): Promise<WllamaEnvironment>;
  /** Models kept in this browser (cut-off copies are removed). */
  listModels(): Promise<StoredModel[]>;
  /** Copies a model's parts into the browser's storage; all or nothing. */
  storeModel(
    model: Omit<StoredModel, "files" | "totalBytes" | "addedAt">,
    parts: NamedBlob[],
    onProgress?: (bytes: number, total: number) => void,
  ): Promise<StoredModel>;
  deleteModel(id: string): Promise<void>;
  /** Downloads (or resumes) a catalog model into the browser's storage. */
  download(
    target: { id: string; url: string; fileName: string },
    onProgress?: (bytes: number, total: number | null) => void,
  ): Promise<StoredModel>;
  cancelDownload(id: string): Promise<void>;
  partialDownloads(): Promise<PartialDownload[]>;
  /** Starts llama.cpp and loads a stored model, replacing any loaded one. */
  load(request: WllamaLoadRequest, onProgress?: (progress: WllamaLoadProgress) => void): Promise<WllamaLoadOutcome>;
  complete(request: WllamaCompletionRequest, onDelta?: (delta: string) => void): Promise<WllamaCompletionResult>;
  /** Stops one request; its complete() rejects with an AbortError. */
  cancel(id: number): Promise<void>;
  unload(): Promise<void>;
}

/** Posted outside Comlink once the worker listens, and on errors no call waits for. */
export interface WllamaWorkerDiagnostic {
  rlmWllamaWorkerDiagnostic: "ready" | "error";
  message: string;
}

export function isWllamaDiagnostic(data: unknown): data is WllamaWorkerDiagnostic {
  return typeof data === "object" && data !== null && "rlmWllamaWorkerDiagnostic" in data;
}
