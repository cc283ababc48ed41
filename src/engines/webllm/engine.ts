// A ChatEngine over a local WebLLM model running in the model worker.
import { EngineAbortedError, EngineError } from "../errors.ts";
import { Limiter } from "../limiter.ts";
import { queuedCall, whileLive } from "../queued-call.ts";
import { testGrammarFor, type TestGrammarHook } from "../test-grammar.ts";
import { estimateMessagesTokens, estimateTokens } from "../tokens.ts";
import type { ChatCallOptions, ChatEngine, ChatRequest, ChatResult, FinishReason } from "../types.ts";
import { ModelWorkerClient } from "./client.ts";
import { mapWebLLMError, type ErrorContext } from "./errors.ts";
import { defaultWindowFor, estimateEnginesVramMB, estimateVramMB } from "./memory.ts";
import { LoadProgressTracker, type LoadStatus } from "./progress.ts";
import type { LoadOutcome, ModelWorkerApi, WorkerCompletionResult } from "./protocol.ts";
import type { ModelSpec } from "./types.ts";

export interface WebLLMEngineOptions {
  /** The worker to run in; usually a ModelWorkerClient. */
  worker: ModelWorkerApi;
  model: ModelSpec;
  /** Tokens; becomes `context_window_size` at load and this engine's contextWindow. Default 4096. */
  contextWindow?: number;
  /** Qwen3 thinking; off by default (the RLM prompt budget is small). Ignored by other models. */
  thinking?: boolean;
  /** Called by dispose(), e.g. to terminate a worker this engine owns. */
  onDispose?: () => void;
  /** Millisecond clock for download speed (tests pass their own). */
  now?: () => number;
  /** Tests only: a grammar per request (src/engines/test-grammar.ts); never from settings. */
  testGrammar?: TestGrammarHook;
}

function toFinishReason(value: string | null): FinishReason {
  if (value === null || value === "stop") return "stop";
  if (value === "length" || value === "abort") return value;
  return "other";
}

function browserOnline(): boolean | undefined {
  const nav = (globalThis as { navigator?: { onLine?: unknown } }).navigator;
  return typeof nav?.onLine === "boolean" ? nav.onLine : undefined;
}

export class WebLLMEngine implements ChatEngine {
  readonly backend = "webllm";
  /** WebLLM serves one request at a time per model (a FIFO lock, no batching). */
  readonly maxConcurrency = 1;
  readonly spec: ModelSpec;
  readonly contextWindow: number;
  /** Qwen3 thinking switch for the next requests. */
  thinking: boolean;

  private readonly worker: ModelWorkerApi;
  private readonly onDispose: (() => void) | undefined;
  private readonly now: () => number;
  /** Our own queue: an interrupt must reach only the request that is running in the worker. */
  private readonly queue = new Limiter(1);
  private disposed = false;
  private readonly testGrammar: TestGrammarHook | undefined;

  constructor(options: WebLLMEngineOptions) {
    this.worker = options.worker;
    this.spec = options.model;
    this.contextWindow = options.contextWindow ?? defaultWindowFor(options.model);
    this.thinking = options.thinking ?? false;
    this.onDispose = options.onDispose;
    this.now = options.now ?? (() => Date.now());
    this.testGrammar = options.testGrammar;
  }

  /** Creates the engine and loads its model (downloading it if needed). */
  static async load(options: WebLLMEngineOptions & { onProgress?: (status: LoadStatus) => void }): Promise<WebLLMEngine> {
    const engine = new WebLLMEngine(options);
    await engine.reload(options.onProgress);
    return engine;
  }

  get model(): string {
    return this.spec.id;
  }

  /** Estimated GPU memory of this engine at its window (MB), when known. */
  get vramMB(): number | undefined {
    return estimateVramMB(this.spec, this.contextWindow);
  }

  /**
   * Loads the model with this engine's window. Also the way back after a GpuDeviceLostError:
   * the conversation lives in the caller's messages, so nothing is lost but the KV cache.
   */
  async reload(onProgress?: (status: LoadStatus) => void): Promise<LoadOutcome> {
    if (this.disposed) throw new EngineError("This local model engine was shut down; load the model again.");
    const tracker = new LoadProgressTracker();
    try {
      const outcome = await this.worker.load(
        { record: this.spec.record, contextWindow: this.contextWindow },
        onProgress ? (report) => onProgress(tracker.update(report, this.now())) : undefined,
      );
      if (outcome.cancelled) throw new EngineAbortedError();
      return outcome;
    } catch (err) {
      throw await this.mapError(err, "load");
    }
  }

  async complete(request: ChatRequest, options: ChatCallOptions = {}): Promise<ChatResult> {
    const { signal, onToken } = options;
    const result = await queuedCall({
      queue: this.queue,
      signal,
      interrupt: () => this.worker.interrupt(),
      mapError: (err) => this.mapError(err, "chat"),
      run: (live) => {
        const grammar = testGrammarFor(this.testGrammar, request.messages);
        return this.worker.complete(
          {
            messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
            ...(request.maxTokens !== undefined ? { maxTokens: request.maxTokens } : {}),
            sampling: request.sampling,
            // Per request (sub-calls ask for none) or the engine's setting; only for models
            // with the switch: WebLLM pre-fills an empty <think> block whenever it is false.
            ...(this.spec.supportsThinkingToggle ? { enableThinking: request.thinking ?? this.thinking } : {}),
            ...(request.stop?.length ? { stop: [...request.stop] } : {}),
            ...(grammar ? { grammar } : {}),
          },
          whileLive(onToken, live),
        );
      },
    });
    return this.toChatResult(result, request);
  }

  private toChatResult(result: WorkerCompletionResult, request: ChatRequest): ChatResult {
    return {
      text: result.text,
      usage: {
        promptTokens: result.usage?.promptTokens ?? estimateMessagesTokens(request.messages),
        completionTokens: result.usage?.completionTokens ?? estimateTokens(result.text),
      },
      usageEstimated: result.usage === null,
      finishReason: toFinishReason(result.finishReason),
      model: this.spec.id,
    };
  }

  private async mapError(err: unknown, phase: ErrorContext["phase"]): Promise<EngineError> {
    if (err instanceof EngineError) return err;
    const ctx: ErrorContext = { phase, modelId: this.spec.id, contextWindow: this.contextWindow };
    const online = browserOnline();
    if (online !== undefined) ctx.online = online;
    if (phase === "load") {
      const cached = await this.worker.hasModelInCache(this.spec.record).catch(() => undefined);
      if (cached !== undefined) ctx.modelCached = cached;
    } else {
      const state = await this.worker.state().catch(() => undefined);
      if (state) ctx.deviceLost = state.deviceLost;
    }
    return mapWebLLMError(err, ctx);
  }

  /** Frees the model's GPU memory; the engine can load again with reload(). */
  async unload(): Promise<void> {
    try {
      await this.worker.unload();
    } catch (err) {
      throw await this.mapError(err, "chat");
    }
  }

  /** Unloads and shuts the worker down for good (if this engine owns it). */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.worker.unload().catch(() => undefined);
    this.onDispose?.();
  }
}

// --- root + sub-call engines --------------------------------------------------------------------

export interface EngineSlot {
  model: ModelSpec;
  contextWindow?: number;
}

export interface WebLLMEnginesOptions {
  root: EngineSlot;
  /**
   * A separate engine (own worker, own weights, own KV cache) for llm_query sub-calls, so they
   * do not evict the root conversation's KV cache. Omit to send sub-calls to the root engine.
   */
  sub?: EngineSlot;
  thinking?: boolean;
  onProgress?: (role: "root" | "sub", status: LoadStatus) => void;
  /** Makes a worker per engine; defaults to a new ModelWorkerClient. */
  createWorker?: () => { worker: ModelWorkerApi; terminate: () => void };
  /** Tests only: handed to each engine (WebLLMEngineOptions.testGrammar). */
  testGrammar?: TestGrammarHook;
}

export interface WebLLMEngines {
  root: WebLLMEngine;
  /** The root engine itself when no separate sub-call engine was asked for. */
  sub: WebLLMEngine;
  separateSub: boolean;
  /** Estimated GPU memory of both engines together (sum of per-engine estimates), MB. */
  vramMB: number | undefined;
  dispose(): Promise<void>;
}

export function defaultWorkerFactory(): { worker: ModelWorkerApi; terminate: () => void } {
  const client = ModelWorkerClient.spawn();
  return { worker: client, terminate: () => client.terminate() };
}

/** What root + sub engines would cost in GPU memory, before loading anything. */
export function estimateWebLLMEnginesVramMB(root: EngineSlot, sub?: EngineSlot): number | undefined {
  const r = { spec: root.model, window: root.contextWindow ?? defaultWindowFor(root.model) };
  return estimateEnginesVramMB(r, sub ? { spec: sub.model, window: sub.contextWindow ?? defaultWindowFor(sub.model) } : undefined);
}

/**
 * Loads the root engine, then (if asked) the sub-call engine, one after the other so a model
 * shared by both is downloaded once. If either fails, both are shut down and the error is thrown.
 */
export async function loadWebLLMEngines(options: WebLLMEnginesOptions): Promise<WebLLMEngines> {
  const factory = options.createWorker ?? defaultWorkerFactory;
  const start = async (slot: EngineSlot, role: "root" | "sub") => {
    const { worker, terminate } = factory();
    const engine = new WebLLMEngine({
      worker,
      model: slot.model,
      ...(slot.contextWindow !== undefined ? { contextWindow: slot.contextWindow } : {}),
      ...(options.thinking !== undefined ? { thinking: options.thinking } : {}),
      ...(options.testGrammar ? { testGrammar: options.testGrammar } : {}),
      onDispose: terminate,
    });
    try {
      await engine.reload(options.onProgress ? (s) => options.onProgress!(role, s) : undefined);
    } catch (err) {
      await engine.dispose();
      throw err;
    }
    return engine;
  };
  const root = await start(options.root, "root");
  let sub = root;
  if (options.sub) {
    try {
      sub = await start(options.sub, "sub");
    } catch (err) {
      await root.dispose();
      throw err;
    }
  }
  const separateSub = sub !== root;
  return {
    root,
    sub,
    separateSub,
    vramMB: estimateWebLLMEnginesVramMB(options.root, options.sub),
    async dispose() {
      await root.dispose();
      if (separateSub) await sub.dispose();
    },
  };
}
