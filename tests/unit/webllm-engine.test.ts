// WebLLMEngine against a stand-in worker (this file only): checks the engine's own logic —
// request shaping, abort/interrupt, queueing, finish reasons, usage and error mapping.
import { describe, expect, it } from "vitest";
import { ContextWindowExceededError, EngineAbortedError } from "../../src/engines/errors.ts";
import { findCatalogEntry } from "../../src/engines/webllm/catalog.ts";
import { WebLLMEngine, loadWebLLMEngines } from "../../src/engines/webllm/engine.ts";
import { GpuDeviceLostError, ModelNotDownloadedError } from "../../src/engines/webllm/errors.ts";
import type { LoadProgressReport } from "../../src/engines/webllm/progress.ts";
import type {
  LoadOutcome,
  LoadRequest,
  ModelCacheStatus,
  ModelWorkerApi,
  WorkerCompletionRequest,
  WorkerCompletionResult,
  WorkerState,
} from "../../src/engines/webllm/protocol.ts";
import type { GpuProbe, WebLLMModelRecord } from "../../src/engines/webllm/types.ts";

const coder = findCatalogEntry("Qwen2.5-Coder-3B-Instruct-q4f16_1-MLC")!;
const qwen3 = findCatalogEntry("Qwen3-1.7B-q4f16_1-MLC")!;
const small = findCatalogEntry("Qwen2.5-0.5B-Instruct-q4f16_1-MLC")!;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function named(name: string, message: string): Error {
  const e = new Error(message);
  e.name = name;
  return e;
}

/** Streams `tokens` one per `stepMs`; an interrupt ends it with finish "abort", like WebLLM. */
class StandInWorker implements ModelWorkerApi {
  loads: LoadRequest[] = [];
  requests: WorkerCompletionRequest[] = [];
  interrupts = 0;
  active = 0;
  maxActive = 0;
  tokens = ["Hel", "lo", " world"];
  stepMs = 5;
  finish: string = "stop";
  usage: WorkerCompletionResult["usage"] = { promptTokens: 42, completionTokens: 3 };
  loadError: unknown;
  completeError: unknown;
  cached = false;
  deviceLost: string | null = null;
  /** One line per completed worker call: when it started and ended, and how it finished. */
  log: Array<{ content: string; start: number; end: number; finish: string }> = [];
  private interrupted = false;

  async probeGpu(): Promise<GpuProbe> {
    return { available: false, reason: "no-api", detail: "stand-in", deviceMemoryGB: undefined };
  }
  async load(request: LoadRequest, onProgress?: (r: LoadProgressReport) => void): Promise<LoadOutcome> {
    this.loads.push(request);
    if (this.loadError) throw this.loadError;
    const text = "Fetching param cache[1/2]: 50MB fetched. 50% completed, 1 secs elapsed.";
    onProgress?.({
      progress: 0.5,
      timeElapsed: 1,
      text,
      parsed: { phase: "downloading", loadedBytes: 50 * 2 ** 20, totalBytes: 100 * 2 ** 20, percent: 50 },
    });
    return { modelId: request.record.model_id, contextWindow: request.contextWindow, cancelled: false, wasCached: false, seconds: 0.1 };
  }
  async complete(request: WorkerCompletionRequest, onDelta?: (d: string) => void): Promise<WorkerCompletionResult> {
    this.requests.push(request);
    if (this.completeError) throw this.completeError;
    this.active += 1;
    this.maxActive = Math.max(this.maxActive, this.active);
    this.interrupted = false;
    const start = performance.now();
    let text = "";
    let finish = this.finish;
    try {
      for (const t of this.tokens) {
        await sleep(this.stepMs);
        if (this.interrupted) {
          finish = "abort";
          break;
        }
        text += t;
        onDelta?.(t);
      }
    } finally {
      this.active -= 1;
    }
    this.log.push({ content: request.messages.at(-1)?.content ?? "", start, end: performance.now(), finish });
    return { text, finishReason: finish, usage: this.usage, model: "stand-in" };
  }
  async interrupt(): Promise<void> {
    this.interrupts += 1;
    this.interrupted = true;
  }
  async unload(): Promise<void> {}
  async state(): Promise<WorkerState> {
    return { loadedModelId: null, contextWindow: null, loading: false, deviceLost: this.deviceLost };
  }
  async hasModelInCache(_record: WebLLMModelRecord): Promise<boolean> {
    return this.cached;
  }
  async cacheStatus(records: WebLLMModelRecord[]): Promise<ModelCacheStatus[]> {
    return records.map((r) => ({ modelId: r.model_id, complete: false, cachedBytes: 0, totalBytes: null }));
  }
  async deleteModel(): Promise<void> {}
}

const ask = (content: string) => ({ messages: [{ role: "user" as const, content }] });

describe("WebLLMEngine", () => {
  it("loads with the chosen window as context_window_size and reports download progress", async () => {
    const worker = new StandInWorker();
    const statuses: string[] = [];
    const engine = await WebLLMEngine.load({
      worker,
      model: coder,
      contextWindow: 8192,
      onProgress: (s) => statuses.push(s.message),
      now: () => 0,
    });
    expect(worker.loads).toEqual([{ record: coder.record, contextWindow: 8192 }]);
    expect(engine.contextWindow).toBe(8192);
    expect(engine.model).toBe(coder.id);
    expect(engine.backend).toBe("webllm");
    expect(engine.maxConcurrency).toBe(1);
    expect(engine.vramMB).toBeCloseTo(2504.76 + 144, 2);
    expect(statuses).toEqual(["Downloading the model: 50% (50 MB of 100 MB)"]);
  });

  it("streams tokens and returns text, usage from the final chunk and the finish reason", async () => {
    const worker = new StandInWorker();
    worker.finish = "length";
    const engine = new WebLLMEngine({ worker, model: coder });
    const seen: string[] = [];
    const result = await engine.complete(
      { ...ask("hi"), maxTokens: 64, sampling: { temperature: 0.2, seed: 7 } },
      { onToken: (t) => seen.push(t) },
    );
    expect(seen).toEqual(["Hel", "lo", " world"]);
    expect(result).toEqual({
      text: "Hello world",
      usage: { promptTokens: 42, completionTokens: 3 },
      usageEstimated: false,
      finishReason: "length",
      model: coder.id,
    });
    expect(worker.requests[0]).toEqual({
      messages: [{ role: "user", content: "hi" }],
      maxTokens: 64,
      sampling: { temperature: 0.2, seed: 7 },
    });
  });

  it("sends the grammar of the test hook it was given (tests only), and none when the hook names none", async () => {
    const worker = new StandInWorker();
    const testGrammar = (messages: Array<{ content: string }>) =>
      messages.some((m) => m.content === "scripted") ? 'root ::= "ok"\n' : undefined;
    const engine = new WebLLMEngine({ worker, model: coder, testGrammar });
    await engine.complete(ask("scripted"));
    await engine.complete(ask("free"));
    expect(worker.requests.map((r) => r.grammar)).toEqual(['root ::= "ok"\n', undefined]);
    expect("grammar" in worker.requests[1]!).toBe(false);
  });

  it("reads no global: a page's test global does not reach an engine built without the option", async () => {
    const worker = new StandInWorker();
    const engine = new WebLLMEngine({ worker, model: coder });
    const global = globalThis as { __rlmTestGrammar?: unknown };
    global.__rlmTestGrammar = () => 'root ::= "ok"\n';
    try {
      await engine.complete(ask("scripted"));
    } finally {
      delete global.__rlmTestGrammar;
    }
    expect("grammar" in worker.requests[0]!).toBe(false);
  });

  it("estimates usage when the worker got no usage chunk", async () => {
    const worker = new StandInWorker();
    worker.usage = null;
    const result = await new WebLLMEngine({ worker, model: coder }).complete(ask("x".repeat(35)));
    expect(result.usageEstimated).toBe(true);
    expect(result.usage.promptTokens).toBe(14); // 35 chars / 3.5 + 4 per message
  });

  it("turns Qwen3 thinking off by default, on when asked, and never sends the switch to Qwen2.5", async () => {
    const worker = new StandInWorker();
    await new WebLLMEngine({ worker, model: qwen3 }).complete(ask("a"));
    const thinking = new WebLLMEngine({ worker, model: qwen3, thinking: true });
    await thinking.complete(ask("b"));
    await new WebLLMEngine({ worker, model: coder, thinking: true }).complete(ask("c"));
    expect(worker.requests.map((r) => r.enableThinking)).toEqual([false, true, undefined]);
    expect("enableThinking" in worker.requests[2]!).toBe(false);
  });

  it("on abort interrupts the running request, rejects at once, and the next request waits for the worker", async () => {
    const worker = new StandInWorker();
    worker.tokens = Array.from({ length: 50 }, (_, i) => `t${i} `); // 500 ms if not interrupted
    worker.stepMs = 10;
    const engine = new WebLLMEngine({ worker, model: coder });
    const controller = new AbortController();
    const first = engine.complete(ask("long"), { signal: controller.signal });
    const second = engine.complete(ask("next"));
    await sleep(35);
    const abortedAt = performance.now();
    controller.abort();
    await expect(first).rejects.toBeInstanceOf(EngineAbortedError);
    expect(performance.now() - abortedAt).toBeLessThan(50); // the caller does not wait for the worker (~450 ms left)
    expect(worker.interrupts).toBe(1);
    const result = await second;
    expect(result.finishReason).toBe("stop");
    const [long, next] = worker.log;
    expect(long).toMatchObject({ content: "long", finish: "abort" });
    expect(long!.end - long!.start).toBeLessThan(200); // stopped by the interrupt
    expect(next!.content).toBe("next");
    expect(next!.start).toBeGreaterThanOrEqual(long!.end); // only after the worker finished the first
    expect(worker.maxActive).toBe(1);
  });

  it("an abort while queued does not interrupt the running request", async () => {
    const worker = new StandInWorker();
    worker.stepMs = 15;
    const engine = new WebLLMEngine({ worker, model: coder });
    const controller = new AbortController();
    const running = engine.complete(ask("one"));
    const queued = engine.complete(ask("two"), { signal: controller.signal });
    await sleep(5);
    controller.abort();
    await expect(queued).rejects.toBeInstanceOf(EngineAbortedError);
    expect((await running).text).toBe("Hello world");
    expect(worker.interrupts).toBe(0);
    expect(worker.requests).toHaveLength(1);
  });

  it("maps an interrupt it did not ask for to finish reason 'abort'", async () => {
    const worker = new StandInWorker();
    worker.stepMs = 10;
    const engine = new WebLLMEngine({ worker, model: coder });
    const pending = engine.complete(ask("x"));
    await sleep(12);
    await worker.interrupt();
    expect((await pending).finishReason).toBe("abort");
  });

  it("maps WebLLM's context overflow to ContextWindowExceededError (the loop compacts on that class)", async () => {
    const worker = new StandInWorker();
    worker.completeError = named(
      "ContextWindowSizeExceededError",
      "Prompt tokens exceed context window size: number of prompt tokens: 4200; context window size: 4096",
    );
    await expect(new WebLLMEngine({ worker, model: coder }).complete(ask("x"))).rejects.toBeInstanceOf(ContextWindowExceededError);
  });

  it("reports a lost GPU device as GpuDeviceLostError and can reload the same model and window", async () => {
    const worker = new StandInWorker();
    const engine = new WebLLMEngine({ worker, model: coder, contextWindow: 16384 });
    worker.deviceLost = "GPU hung";
    worker.completeError = named("ModelNotLoadedError", "Model not loaded before trying to complete ChatCompletionRequest");
    const err = await engine.complete(ask("x")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GpuDeviceLostError);
    expect((err as Error).message).toMatch(/GPU hung/);
    worker.deviceLost = null;
    worker.completeError = undefined;
    await engine.reload();
    expect(worker.loads.at(-1)).toEqual({ record: coder.record, contextWindow: 16384 });
    expect((await engine.complete(ask("again"))).text).toBe("Hello world");
  });

  it("a failed load of an uncached model while offline says to download it once online", async () => {
    const worker = new StandInWorker();
    worker.loadError = new TypeError("Failed to fetch");
    const err = await WebLLMEngine.load({ worker, model: coder }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelNotDownloadedError);
    expect((err as Error).message).toContain(coder.id);
  });
});

describe("loadWebLLMEngines", () => {
  it("shares the root engine when no sub-call model is given", async () => {
    const workers: StandInWorker[] = [];
    const engines = await loadWebLLMEngines({
      root: { model: coder },
      createWorker: () => {
        const w = new StandInWorker();
        workers.push(w);
        return { worker: w, terminate: () => undefined };
      },
    });
    expect(engines.sub).toBe(engines.root);
    expect(engines.separateSub).toBe(false);
    expect(workers).toHaveLength(1);
    expect(engines.vramMB).toBe(2504.76);
  });

  it("loads a separate sub-call engine in its own worker, root first, and sums their memory", async () => {
    const order: string[] = [];
    let terminated = 0;
    const engines = await loadWebLLMEngines({
      root: { model: coder, contextWindow: 8192 },
      sub: { model: small },
      onProgress: (role) => order.push(role),
      createWorker: () => ({ worker: new StandInWorker(), terminate: () => (terminated += 1) }),
    });
    expect(engines.separateSub).toBe(true);
    expect(engines.sub.model).toBe(small.id);
    expect(engines.root.contextWindow).toBe(8192);
    expect(order).toEqual(["root", "sub"]);
    expect(engines.vramMB).toBeCloseTo(2504.76 + 144 + 944.62, 2);
    await engines.dispose();
    expect(terminated).toBe(2);
  });

  it("shuts the root down when the sub engine fails to load", async () => {
    let made = 0;
    let terminated = 0;
    const err = await loadWebLLMEngines({
      root: { model: coder },
      sub: { model: small },
      createWorker: () => {
        const w = new StandInWorker();
        made += 1;
        if (made === 2) w.loadError = new TypeError("Failed to fetch");
        return { worker: w, terminate: () => (terminated += 1) };
      },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelNotDownloadedError);
    expect(terminated).toBe(2);
  });
});
