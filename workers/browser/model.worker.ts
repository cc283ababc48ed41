// The model worker: WebLLM's MLCEngine inside our own module worker, exposed with Comlink.
// Why not WebLLM's WebWorkerMLCEngineHandler: it turns every error into a string, claims the
// worker's onmessage (no room for our own calls), and reloads on every request. Here errors keep
// their name and message (Comlink carries both), and the API is the one in protocol.ts.
// This is the only file that imports web-llm values; its 6 MB bundle stays in this worker chunk.
import * as Comlink from "comlink";
import {
  MLCEngine,
  deleteModelAllInfoInCache,
  hasModelInCache,
  type AppConfig,
  type ChatCompletionRequestStreaming,
  type InitProgressReport,
  type ModelRecord,
} from "@mlc-ai/web-llm";
import { resolveWeightsBaseUrl } from "../../src/engines/webllm/custom-model.ts";
import { describeRawError } from "../../src/engines/webllm/errors.ts";
import { probeGpu } from "../../src/engines/webllm/gpu-probe.ts";
import { parseProgressText, type LoadProgressReport } from "../../src/engines/webllm/progress.ts";
import type {
  LoadOutcome,
  LoadRequest,
  ModelCacheStatus,
  ModelWorkerApi,
  WorkerCompletionRequest,
  WorkerCompletionResult,
  WorkerDiagnostic,
  WorkerState,
} from "../../src/engines/webllm/protocol.ts";
import type { WebLLMModelRecord } from "../../src/engines/webllm/types.ts";
import { ChatStreamTally } from "./chat-stream.ts";
import { callQuietly, namedError } from "./comlink-edges.ts";
import { openAiSampling } from "../../src/core/sampling.ts";

const engine = new MLCEngine();

let loaded: { modelId: string; contextWindow: number } | null = null;
let loading = false;
let cancelRequested = false;
let deviceLost: string | null = null;
/** Set by interrupt(); the running completion re-sends the interrupt once its stream starts. */
let abortRequested = false;

function post(diagnostic: WorkerDiagnostic): void {
  (self as unknown as { postMessage(data: unknown): void }).postMessage(diagnostic);
}

// A rejection nobody handles inside the worker would otherwise be visible only in the console.
self.addEventListener("unhandledrejection", (event: PromiseRejectionEvent) => {
  const { name, message } = describeRawError(event.reason);
  post({ rlmModelWorkerDiagnostic: "unhandledrejection", message: `${name}: ${message}` });
});

/**
 * WebLLM creates its GPUDevice internally and reacts to `device.lost` only by logging and
 * unloading. To tell the user "the GPU was lost, reload" we watch every device it requests;
 * reason "destroyed" is our own unload, anything else is a real loss.
 */
function watchDeviceLoss(): void {
  const adapterClass = (globalThis as { GPUAdapter?: { prototype: Record<string, unknown> } }).GPUAdapter;
  const proto = adapterClass?.prototype as
    | { requestDevice?: (...args: unknown[]) => Promise<{ lost: Promise<{ reason: string; message: string }> }>; rlmWatched?: boolean }
    | undefined;
  if (!proto?.requestDevice || proto.rlmWatched) return;
  const original = proto.requestDevice;
  proto.requestDevice = async function (this: unknown, ...args: unknown[]) {
    const device = await original.apply(this, args);
    void device.lost.then((info) => {
      if (info.reason !== "destroyed") deviceLost = info.message || "the browser reported no reason";
    });
    return device;
  };
  proto.rlmWatched = true;
}
watchDeviceLoss();

/** Errors leave the worker as plain Errors with a meaningful name (Comlink drops subclasses). */
function plainError(err: unknown): Error {
  const { name, message } = describeRawError(err);
  const e = new Error(message);
  e.name = name;
  if (err instanceof Error && err.stack) e.stack = err.stack;
  return e;
}

function appConfigFor(record: WebLLMModelRecord): AppConfig {
  // Our record has exactly ModelRecord's shape; the main thread owns the list (catalog.generated.ts).
  return { model_list: [record as ModelRecord] };
}

const api: ModelWorkerApi = {
  probeGpu: () => probeGpu(),

  async load(request: LoadRequest, onProgress?: (report: LoadProgressReport) => void): Promise<LoadOutcome> {
    const started = performance.now();
    // WebLLM fetches the config and the library before it looks for a GPU; check first so that a
    // browser without WebGPU is told so at once instead of after a download.
    const gpu = await probeGpu();
    if (!gpu.available) {
      throw gpu.reason === "no-api"
        ? namedError("WebGPUNotAvailableError", gpu.detail)
        : namedError("WebGPUNotFoundError", `Unable to find a compatible GPU: ${gpu.detail}`);
    }
    const modelId = request.record.model_id;
    const appConfig = appConfigFor(request.record);
    const wasCached = await hasModelInCache(modelId, appConfig).catch(() => false);
    engine.setAppConfig(appConfig);
    engine.setInitProgressCallback((report: InitProgressReport) => {
      callQuietly(onProgress, { ...report, parsed: parseProgressText(report) });
    });
    loaded = null;
    loading = true;
    cancelRequested = false;
    deviceLost = null;
    try {
      await engine.reload(modelId, { context_window_size: request.contextWindow });
    } catch (err) {
      throw plainError(err);
    } finally {
      loading = false;
    }
    const cancelled = cancelRequested;
    if (!cancelled) loaded = { modelId, contextWindow: request.contextWindow };
    return { modelId, contextWindow: request.contextWindow, cancelled, wasCached, seconds: (performance.now() - started) / 1000 };
  },

  async complete(request: WorkerCompletionRequest, onDelta?: (delta: string) => void): Promise<WorkerCompletionResult> {
    if (!loaded) {
      throw namedError(
        "ModelNotLoadedError",
        deviceLost ? `Model not loaded: the GPU device was lost (${deviceLost})` : "Model not loaded",
      );
    }
    abortRequested = false;
    let reinterrupted = false;
    const body: ChatCompletionRequestStreaming = {
      messages: request.messages,
      stream: true,
      stream_options: { include_usage: true },
      ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
      ...openAiSampling(request.sampling),
      ...(request.enableThinking !== undefined ? { extra_body: { enable_thinking: request.enableThinking } } : {}),
      ...(request.stop?.length ? { stop: request.stop } : {}),
      ...(request.grammar ? { response_format: { type: "grammar", grammar: request.grammar } } : {}),
    };
    const tally = new ChatStreamTally();
    let model = loaded.modelId;
    try {
      const stream = await engine.chat.completions.create(body);
      // `for await` calls the iterator's return() if the body throws, and WebLLM releases its
      // per-model lock only in the generator's finally: leaving early any other way would
      // leave every later request waiting forever.
      for await (const chunk of stream) {
        if (abortRequested && !reinterrupted) {
          // The interrupt may have arrived before WebLLM reset its flag at the start of this
          // request (it resets once it holds the lock); sending it again now makes it stick.
          reinterrupted = true;
          await engine.interruptGenerate();
        }
        tally.add(chunk, (delta) => callQuietly(onDelta, delta));
        if (chunk.model) model = chunk.model;
      }
    } catch (err) {
      throw plainError(err);
    }
    return { text: tally.text, finishReason: tally.finishReason, usage: tally.usage, model };
  },

  async interrupt(): Promise<void> {
    abortRequested = true;
    await engine.interruptGenerate();
  },

  async unload(): Promise<void> {
    if (loading) cancelRequested = true;
    try {
      await engine.unload();
    } catch (err) {
      throw plainError(err);
    } finally {
      loaded = null;
    }
  },

  async state(): Promise<WorkerState> {
    return {
      loadedModelId: loaded?.modelId ?? null,
      contextWindow: loaded?.contextWindow ?? null,
      loading,
      deviceLost,
    };
  },

  async hasModelInCache(record: WebLLMModelRecord): Promise<boolean> {
    try {
      return await hasModelInCache(record.model_id, appConfigFor(record));
    } catch (err) {
      throw plainError(err);
    }
  },

  async cacheStatus(records: WebLLMModelRecord[]): Promise<ModelCacheStatus[]> {
    // Reads WebLLM's Cache API store ("webllm/model", the default backend) directly, because
    // hasModelInCache() says only yes/no and the UI wants sizes and partial downloads.
    try {
      const cache = await caches.open("webllm/model");
      const keys = new Set((await cache.keys()).map((r) => r.url));
      const out: ModelCacheStatus[] = [];
      for (const record of records) {
        const base = resolveWeightsBaseUrl(record.model);
        const manifestUrl = new URL("tensor-cache.json", base).href;
        const manifestResponse = keys.has(manifestUrl) ? await cache.match(manifestUrl) : undefined;
        if (!manifestResponse) {
          out.push({ modelId: record.model_id, complete: false, cachedBytes: 0, totalBytes: null });
          continue;
        }
        const manifest = (await manifestResponse.json()) as { records?: Array<{ dataPath: string; nbytes: number }> };
        const shards = manifest.records ?? [];
        let total = 0;
        let cached = 0;
        let complete = true;
        for (const shard of shards) {
          total += shard.nbytes;
          if (keys.has(new URL(shard.dataPath, base).href)) cached += shard.nbytes;
          else complete = false;
        }
        out.push({ modelId: record.model_id, complete: complete && shards.length > 0, cachedBytes: cached, totalBytes: total });
      }
      return out;
    } catch (err) {
      throw plainError(err);
    }
  },

  async deleteModel(record: WebLLMModelRecord): Promise<void> {
    if (loaded?.modelId === record.model_id) await api.unload();
    try {
      await deleteModelAllInfoInCache(record.model_id, appConfigFor(record));
      // WebLLM 0.2.86 deletes the shards but leaves tensor-cache.json behind; remove it too so
      // the model no longer looks partly downloaded.
      const cache = await caches.open("webllm/model");
      await cache.delete(new URL("tensor-cache.json", resolveWeightsBaseUrl(record.model)).href);
    } catch (err) {
      throw plainError(err);
    }
  },
};

Comlink.expose(api);
post({ rlmModelWorkerDiagnostic: "ready", message: "" });
