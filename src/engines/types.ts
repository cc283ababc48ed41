// The one interface every model backend implements: messages in, streamed text and usage out,
// abortable. The RLM loop only ever sees this.

import type { Sampling } from "../core/sampling.ts";
export type ChatRole = "system" | "user" | "assistant";

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

export interface ChatUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface ChatRequest {
  messages: ChatMessage[];
  maxTokens?: number;
  /** Temperature, top-p, seed as one value (src/core/sampling.ts); absent: the engine's defaults. */
  sampling?: Sampling;
  /** Ask the backend for a different model than its default (OpenAI-compatible servers). */
  model?: string;
  /**
   * Stop generating at any of these strings. The loop sends the labels the harness writes
   * itself ("REPL output", "Observation:"…) on every root request, so a model cannot go on to
   * invent the REPL's answer. Backends that limit the count keep the first ones.
   */
  stop?: readonly string[];
  /**
   * Reasoning for models that have a switch (Qwen3 "thinking"): false asks for none, true for
   * it; undefined leaves the backend's own default. Models without a switch ignore it.
   */
  thinking?: boolean;
}

export type FinishReason = "stop" | "length" | "abort" | "other";

export interface ChatResult {
  text: string;
  usage: ChatUsage;
  /** True when the backend did not report usage and the counts are estimates. */
  usageEstimated: boolean;
  finishReason: FinishReason;
  /** The model that answered. */
  model: string;
}

export interface ChatCallOptions {
  signal?: AbortSignal;
  /** Streamed text as it arrives. */
  onToken?: (delta: string) => void;
}

export interface ChatEngine {
  /** A label for the model, used in usage tables and trajectories. */
  readonly model: string;
  /** Backend kind for trajectories ("openai", "webllm"). */
  readonly backend: string;
  /** Tokens the model can attend to (prompt + completion). */
  readonly contextWindow: number;
  /** How many requests the backend serves well at once (sub-call batches use this). */
  readonly maxConcurrency: number;
  /**
   * Where the model answers: the endpoint's base URL for a model server; absent for a model in
   * this browser or process. What a run may spend is said by it (fallback-cost.ts: local or billed).
   */
  readonly baseUrl?: string;
  complete(request: ChatRequest, options?: ChatCallOptions): Promise<ChatResult>;
}
