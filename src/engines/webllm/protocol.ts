// The model worker's API, as seen through Comlink. One interface: the worker implements it,
// the main thread calls it. Callbacks are top-level arguments because Comlink honours
// Comlink.proxy() only there (a proxy nested in an object fails with DataCloneError).
import type { LoadProgressReport } from "./progress.ts";
import type { GpuProbe, WebLLMModelRecord } from "./types.ts";
import type { Sampling } from "../../core/sampling.ts";

export interface LoadRequest {
  record: WebLLMModelRecord;
  /** Passed to WebLLM as chatOpts.context_window_size. */
  contextWindow: number;
}

export interface LoadOutcome {
  modelId: string;
  contextWindow: number;
  /** True when unload() cancelled the load before it finished (WebLLM then returns normally). */
  cancelled: boolean;
  /** The weights were fully in the browser cache before the load started. */
  wasCached: boolean;
  seconds: number;
}

export interface WorkerChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface WorkerCompletionRequest {
  messages: WorkerChatMessage[];
  maxTokens?: number;
  /** Temperature, top-p, seed as one value (src/core/sampling.ts); absent: the engine's defaults. */
  sampling?: Sampling;
  /**
   * Qwen3 thinking switch, sent as extra_body.enable_thinking. Leave undefined for models
   * without the switch: WebLLM injects an empty <think> block whenever it is false.
   */
  enableThinking?: boolean;
  /** Extra stop strings for this request (WebLLM adds them to the template's own). */
  stop?: string[];
  /** EBNF for WebLLM's response_format: tests only (src/engines/test-grammar.ts), never from settings. */
  grammar?: string;
}

export interface WorkerUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface WorkerCompletionResult {
  text: string;
  /** WebLLM's finish_reason: "stop", "length", "abort", "tool_calls", or null if none came. */
  finishReason: string | null;
  /** From the stream's final usage chunk (stream_options.include_usage). */
  usage: WorkerUsage | null;
  model: string;
}

export interface WorkerState {
  loadedModelId: string | null;
  contextWindow: number | null;
  loading: boolean;
  /** Reason the WebGPU device was lost (not destroyed by an unload), or null. */
  deviceLost: string | null;
}

export interface ModelCacheStatus {
  modelId: string;
  /** Every weight shard is cached (what WebLLM's hasModelInCache checks). */
  complete: boolean;
  /** Bytes of weight shards already cached (a partial download is resumed from these). */
  cachedBytes: number;
  /** Bytes of all weight shards, when the manifest is cached; null otherwise. */
  totalBytes: number | null;
}

export interface ModelWorkerApi {
  /** Looks for a WebGPU adapter; never throws. */
  probeGpu(): Promise<GpuProbe>;
  /** Loads (downloading if needed) one model, replacing any loaded one. */
  load(request: LoadRequest, onProgress?: (report: LoadProgressReport) => void): Promise<LoadOutcome>;
  /** Streams one chat completion; deltas go to onDelta, the whole result is returned. */
  complete(request: WorkerCompletionRequest, onDelta?: (delta: string) => void): Promise<WorkerCompletionResult>;
  /** Stops the running generation after the current decode step (finish_reason "abort"). */
  interrupt(): Promise<void>;
  /** Frees the GPU memory; also cancels a load in progress. */
  unload(): Promise<void>;
  state(): Promise<WorkerState>;
  hasModelInCache(record: WebLLMModelRecord): Promise<boolean>;
  cacheStatus(records: WebLLMModelRecord[]): Promise<ModelCacheStatus[]>;
  /** Deletes weights, tokenizer, library and config of one model from the browser cache. */
  deleteModel(record: WebLLMModelRecord): Promise<void>;
}

/**
 * Messages the worker posts outside Comlink (Comlink ignores messages without its id), so the
 * client learns about problems that have no pending call to reject.
 */
export interface WorkerDiagnostic {
  /** ready: Comlink.expose ran (before that, a worker error means the worker never started). */
  rlmModelWorkerDiagnostic: "ready" | "unhandledrejection" | "error";
  message: string;
}

export function isWorkerDiagnostic(data: unknown): data is WorkerDiagnostic {
  return typeof data === "object" && data !== null && "rlmModelWorkerDiagnostic" in data;
}
