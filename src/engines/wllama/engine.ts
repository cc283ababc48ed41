// A ChatEngine over llama.cpp (wllama) in its worker: CPU, threads when the page is
// cross-origin isolated, llama-server's prompt cache kept per slot so a root turn evaluates only
// its new tokens even with sub-calls in between.
import { EngineError } from "../errors.ts";
import { Limiter } from "../limiter.ts";
import { queuedCall, whileLive } from "../queued-call.ts";
import { estimateMessagesTokens, estimateTokens } from "../tokens.ts";
import { testGrammarFor, type TestGrammarHook } from "../test-grammar.ts";
import type { ChatCallOptions, ChatEngine, ChatRequest, ChatResult, FinishReason } from "../types.ts";
import { ModelTooBigError, mapWorkerError } from "./errors.ts";
import { KV_SLOTS, planMemory, type MemoryPlan } from "./memory.ts";
import type { GgufModelInfo } from "./model-file.ts";
import type { WllamaAssets, WllamaCompletionResult, WllamaLoadOutcome, WllamaTimings, WllamaWorkerApi } from "./protocol.ts";
import type { WllamaLoadProgress } from "./load-progress.ts";

/** What llama.cpp reported for one call (for the page's cache line and the tests). */
export interface CallRecord {
  promptTokens: number;
  cachedTokens: number;
  evaluatedTokens: number;
  completionTokens: number;
  promptMs: number;
  predictedMs: number;
}

export interface WllamaEngineOptions {
  worker: WllamaWorkerApi;
  /** The stored model (model-store.ts) to load. */
  modelId: string;
  info: GgufModelInfo;
  /** Tokens per request (the loop's window); the KV cache holds KV_SLOTS of these. */
  contextWindow: number;
  threads: number;
  assets: WllamaAssets;
  /**
   * "simd": our build with ggml's SIMD128 kernels (vendor/llama-wasm; docs/llama-wasm-build.md
   * has its speed against wllama's own), what the page runs. Absent: wllama's build (the bench).
   */
  build?: "simd";
  libllama: string;
  /** Label in the page and trajectories. */
  label: string;
  onDispose?: () => void;
  onCall?: (record: CallRecord) => void;
  /** Tests only: a grammar per request (src/engines/test-grammar.ts); never from settings. */
  testGrammar?: TestGrammarHook;
}

function toFinishReason(value: string | null): FinishReason {
  if (value === null || value === "stop") return "stop";
  if (value === "length") return "length";
  return "other";
}

export class WllamaEngine implements ChatEngine {
  readonly backend = "wllama";
  /** One request at a time: the CPU is shared anyway, and Stop must reach the running one. */
  readonly maxConcurrency = 1;
  readonly contextWindow: number;
  readonly memory: MemoryPlan;
  readonly calls: CallRecord[] = [];
  loadOutcome: WllamaLoadOutcome | null = null;

  private readonly queue = new Limiter(1);
  private nextId = 1;
  private disposed = false;

  constructor(private readonly options: WllamaEngineOptions) {
    this.contextWindow = options.contextWindow;
    this.memory = planMemory(options.info, options.contextWindow);
  }

  get model(): string {
    return this.options.label;
  }

  get info(): GgufModelInfo {
    return this.options.info;
  }

  /** Checks memory first (refusing before any load), then starts llama.cpp with the model. */
  async load(onProgress?: (progress: WllamaLoadProgress) => void): Promise<WllamaLoadOutcome> {
    if (this.disposed) throw new EngineError("This local model engine was shut down; load the model again.");
    if (!this.memory.fits) throw new ModelTooBigError(this.memory.arithmetic);
    try {
      this.loadOutcome = await this.options.worker.load(
        {
          modelId: this.options.modelId,
          kvTokens: this.memory.kvTokens,
          slots: KV_SLOTS,
          threads: this.options.threads,
          assets: this.options.assets,
          ...(this.options.build ? { build: this.options.build } : {}),
        },
        onProgress,
      );
      return this.loadOutcome;
    } catch (err) {
      throw mapWorkerError(err, { libllama: this.options.libllama, modelName: this.options.info.name });
    }
  }

  async complete(request: ChatRequest, options: ChatCallOptions = {}): Promise<ChatResult> {
    const { signal, onToken } = options;
    const id = this.nextId++;
    const result = await queuedCall({
      queue: this.queue,
      signal,
      interrupt: () => this.options.worker.cancel(id),
      mapError: (err) => mapWorkerError(err, { libllama: this.options.libllama, modelName: this.options.info.name }),
      run: (live) => {
        const grammar = testGrammarFor(this.options.testGrammar, request.messages);
        return this.options.worker.complete(
          {
            id,
            messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
            ...(request.maxTokens !== undefined ? { maxTokens: request.maxTokens } : {}),
            sampling: request.sampling,
            ...(request.stop?.length ? { stop: [...request.stop] } : {}),
            // Only templates with Qwen3's switch; off unless asked (sub-calls never think).
            ...(this.options.info.thinkingSwitch ? { thinking: request.thinking ?? false } : {}),
            ...(grammar ? { grammar } : {}),
          },
          whileLive(onToken, live),
        );
      },
    });
    return this.toChatResult(result, request);
  }

  private record(t: WllamaTimings, result: WllamaCompletionResult): CallRecord {
    const record: CallRecord = {
      promptTokens: result.usage?.promptTokens ?? t.promptTokens + t.cachedTokens,
      cachedTokens: t.cachedTokens,
      evaluatedTokens: t.promptTokens,
      completionTokens: result.usage?.completionTokens ?? t.predictedTokens,
      promptMs: t.promptMs,
      predictedMs: t.predictedMs,
    };
    this.calls.push(record);
    if (this.calls.length > 500) this.calls.shift();
    this.options.onCall?.(record);
    return record;
  }

  private toChatResult(result: WllamaCompletionResult, request: ChatRequest): ChatResult {
    const record = result.timings ? this.record(result.timings, result) : null;
    const counted =
      record ?? (result.usage ? { promptTokens: result.usage.promptTokens, completionTokens: result.usage.completionTokens } : null);
    return {
      text: result.text,
      usage: {
        promptTokens: counted?.promptTokens ?? estimateMessagesTokens(request.messages),
        completionTokens: counted?.completionTokens ?? estimateTokens(result.text),
      },
      usageEstimated: counted === null,
      finishReason: toFinishReason(result.finishReason),
      model: this.model,
    };
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.options.worker.unload().catch(() => undefined);
    this.options.onDispose?.();
  }
}
