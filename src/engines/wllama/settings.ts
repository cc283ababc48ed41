// What the page's settings hold for the llama.cpp engine. No DOM.

export interface WllamaSettings {
  /** A stored model's id (model-store.ts); "" = none chosen yet. */
  modelId: string;
  /** Tokens per request; 0 = the model's default (8K, or what memory allows). */
  contextWindow: number;
  /** CPU threads; 0 = half the cores the browser reports (see defaultThreads). */
  threads: number;
}

export const WLLAMA_DEFAULTS: WllamaSettings = { modelId: "", contextWindow: 0, threads: 0 };
