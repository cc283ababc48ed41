// llama.cpp in the page: wllama (llama.cpp compiled to WebAssembly) inside our own module worker,
// exposed with Comlink (src/engines/wllama/protocol.ts). wllama starts its own inner worker for
// the wasm (and pthreads when the page is cross-origin isolated); this one owns the Wllama object,
// reads the model's Blobs for it and turns its OpenAI-shaped stream into our protocol.
// This is the only file that imports wllama values.
import * as Comlink from "comlink";
import {
  Wllama,
  WllamaAbortError,
  WllamaError,
  type CacheManager,
  type ChatCompletionChunk,
  type ChatCompletionParams,
} from "@wllama/wllama";
import type {
  WllamaCompletionRequest,
  WllamaCompletionResult,
  WllamaEnvironment,
  WllamaLoadOutcome,
  WllamaLoadRequest,
  WllamaTimings,
  WllamaWorkerApi,
  WllamaWorkerDiagnostic,
} from "../../src/engines/wllama/protocol.ts";
import {
  deleteStoredModel,
  downloadModel,
  listStoredModels,
  openStoredModel,
  partialDownloads,
  storeModel,
} from "../../src/engines/wllama/model-store.ts";
import { inspectModel } from "../../src/engines/wllama/model-file.ts";
import { hasWasmRelaxedSimd } from "../../src/engines/wllama/simd.ts";
import { loadReporter, type WllamaLoadProgress } from "../../src/engines/wllama/load-progress.ts";
import { ChatStreamTally } from "./chat-stream.ts";
import { callQuietly, namedError } from "./comlink-edges.ts";
import { openAiSampling } from "../../src/core/sampling.ts";

let wllama: Wllama | null = null;
/** Requests under way; `prefilling` until their first chunk (a token) arrives. */
const running = new Map<number, { controller: AbortController; prefilling: boolean }>();
/** The last load, to load again after Stop ended llama.cpp in the middle of a prefill. */
let lastLoad: WllamaLoadRequest | null = null;
let reloadAfterStop = false;
const downloads = new Map<string, AbortController>();
/** llama.cpp's recent log lines: its words explain a failed load better than "load_error". */
const recentLog: string[] = [];

function post(diagnostic: WllamaWorkerDiagnostic): void {
  (self as unknown as { postMessage(data: unknown): void }).postMessage(diagnostic);
}

function remember(level: string, args: unknown[]): void {
  const line = args
    .map((a) => (typeof a === "string" ? a : a instanceof Error ? a.message : ""))
    .join(" ")
    .trim();
  if (!line) return;
  recentLog.push(`${level}: ${line}`);
  if (recentLog.length > 60) recentLog.shift();
}

const logger = {
  debug: (...args: unknown[]) => remember("debug", args),
  log: (...args: unknown[]) => remember("log", args),
  warn: (...args: unknown[]) => remember("warn", args),
  error: (...args: unknown[]) => remember("error", args),
};

const NO_DOWNLOADS = {} as CacheManager;
const NO_DOWNLOADS_MODELS = {} as NonNullable<ConstructorParameters<typeof Wllama>[1]>["modelManager"];

const LOAD_FAILED = /failed to load model|error loading model/;
/** llama.cpp's load-time lines that say how much memory a buffer took (bench/wllama.ts reports them). */
const MEMORY_LINE = /buffer size|kv_cache.*size|KV self size|flash_attn/i;

function jspi(): boolean {
  return typeof (WebAssembly as unknown as { Suspending?: unknown }).Suspending === "function";
}

function memory64(): boolean {
  try {
    new WebAssembly.Memory({ address: "i64", initial: 1n } as unknown as WebAssembly.MemoryDescriptor);
    return true;
  } catch {
    return false;
  }
}

function plain(err: unknown): Error {
  return err instanceof Error ? namedError(err.name, err.message) : namedError("Error", String(err));
}

function describeLoadFailure(err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  const log = recentLog.join("\n");
  const arch = /unknown model architecture: '([^']*)'/.exec(log);
  if (arch) return namedError("UnknownArchitectureError", arch[1]!);
  if (err instanceof WllamaError && err.type === "version_mismatch") return namedError("WllamaVersionMismatchError", message);
  if (/out of memory|Cannot allocate|Aborted\(OOM\)|failed to allocate|RangeError/i.test(`${message}\n${log}`)) {
    return namedError("WllamaOutOfMemoryError", message);
  }
  const detail = recentLog
    .filter((l) => /^error:|failed|error/i.test(l))
    .slice(-3)
    .join(" | ");
  return namedError("WllamaLoadError", detail ? `${message} (llama.cpp: ${detail})` : message);
}

/**
 * wllama's own words when a call into llama.cpp ended in a C++ exception: its glue then returns no
 * reply and never writes the reply's length, so wllama reads the request's first bytes ("GLUE",
 * 1163217991) as one ("Invalid typed array length"), or reports the module as crashed. Seen once in
 * the bench (docs/llama-wasm-build.md); the exception's own text is in llama.cpp's error log.
 */
const CRASHED = /Invalid typed array length|wllama has crashed/;

/** llama.cpp's worker is dead after such a failure: the next request loads the model afresh. */
function crashed(): Error {
  const old = wllama;
  wllama = null;
  reloadAfterStop = lastLoad !== null;
  void old?.exit().catch(() => undefined);
  // llama.cpp's own line (the exception's text), not wllama's report of the JavaScript error after it
  const cause = recentLog.filter((l) => l.startsWith("error:") && !/Stack trace|Invalid typed array|RangeError/.test(l)).at(-1);
  return namedError(
    "WllamaRuntimeError",
    `llama.cpp failed inside this request${cause ? ` (${cause})` : ""}; the model is loaded again for the next one.`,
  );
}

function toTimings(t: ChatCompletionChunk["timings"]): WllamaTimings | null {
  if (!t) return null;
  return {
    cachedTokens: t.cache_n,
    promptTokens: t.prompt_n,
    promptMs: t.prompt_ms,
    predictedTokens: t.predicted_n,
    predictedMs: t.predicted_ms,
  };
}

const api: WllamaWorkerApi = {
  async environment(): Promise<WllamaEnvironment> {
    const j = jspi();
    const m = memory64();
    return {
      jspi: j,
      memory64: m,
      compat: !j || !m,
      crossOriginIsolated: globalThis.crossOriginIsolated === true,
      hardwareConcurrency: navigator.hardwareConcurrency || 1,
      libllama: Wllama.getLibllamaVersion(),
    };
  },

  listModels: () => listStoredModels().catch((err: unknown) => Promise.reject(plain(err))),

  storeModel: (model, parts, onProgress) =>
    storeModel(model, parts, onProgress ? (b, t) => callQuietly(onProgress, b, t) : undefined).catch((err: unknown) =>
      Promise.reject(plain(err)),
    ),

  deleteModel: async (id: string) => {
    downloads.get(id)?.abort();
    await deleteStoredModel(id);
  },

  async download(target, onProgress) {
    const controller = new AbortController();
    downloads.set(target.id, controller);
    try {
      return await downloadModel(
        { ...target, source: "catalog" },
        (file) => inspectModel([{ name: target.fileName, blob: file }]),
        controller.signal,
        onProgress ? (b, t) => callQuietly(onProgress, b, t) : undefined,
      );
    } catch (err) {
      throw plain(err);
    } finally {
      downloads.delete(target.id);
    }
  },

  async cancelDownload(id: string) {
    downloads.get(id)?.abort();
  },

  partialDownloads: () => partialDownloads().catch((err: unknown) => Promise.reject(plain(err))),

  async load(request: WllamaLoadRequest, onProgress?: (progress: WllamaLoadProgress) => void): Promise<WllamaLoadOutcome> {
    const started = performance.now();
    await api.unload();
    recentLog.length = 0;
    const build = buildHere(request.build);
    const relaxed = build === "simd" && request.relaxedSimd !== false && hasWasmRelaxedSimd();
    const instance = newInstance(request, build, relaxed);
    const progress = loadReporter((p) => callQuietly(onProgress, p), Math.round(request.kvTokens / Math.max(1, request.slots)));
    progress.start();
    try {
      await loadStoredModel(instance, request, progress);
    } catch (err) {
      await instance.exit().catch(() => undefined);
      if (err instanceof Error && err.name === "ModelStoreError") throw namedError("ModelStoreError", err.message);
      throw describeLoadFailure(err);
    }
    wllama = instance;
    lastLoad = request;
    reloadAfterStop = false;
    return loadOutcome(instance, build, relaxed, started);
  },

  async complete(request: WllamaCompletionRequest, onDelta?: (delta: string) => void): Promise<WllamaCompletionResult> {
    if (!wllama && reloadAfterStop && lastLoad) await api.load(lastLoad);
    if (!wllama) throw namedError("ModelNotLoadedError", "The model is not loaded.");
    const controller = new AbortController();
    const entry = { controller, prefilling: true };
    running.set(request.id, entry);
    const params: ChatCompletionParams & { stop?: string[] } = {
      messages: request.messages,
      stream: true,
      abortSignal: controller.signal,
      // Keep each slot's prompt in its KV cache: the next root turn evaluates only its new tokens.
      cache_prompt: true,
      ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
      ...openAiSampling(request.sampling),
      // `stop` is typed only for createCompletion; llama-server reads it on chat too.
      ...(request.stop?.length ? { stop: request.stop } : {}),
      ...(request.thinking !== undefined ? { chat_template_kwargs: { enable_thinking: request.thinking } } : {}),
      ...(request.grammar ? { grammar: request.grammar } : {}),
      ...(request.ignoreEos ? { ignore_eos: true } : {}),
    };
    const tally = new ChatStreamTally();
    let timings: WllamaTimings | null = null;
    try {
      const stream = await wllama.createChatCompletion(params as ChatCompletionParams & { stream: true });
      for await (const chunk of stream) {
        entry.prefilling = false;
        tally.add(chunk, (delta) => callQuietly(onDelta, delta));
        if (chunk.timings) timings = toTimings(chunk.timings);
      }
    } catch (err) {
      if (err instanceof WllamaAbortError || controller.signal.aborted) throw namedError("AbortError", "The model call was stopped.");
      const message = err instanceof Error ? err.message : String(err);
      if (/context|n_ctx|exceeds|too long/i.test(message)) throw namedError("ContextWindowExceededError", message);
      if (CRASHED.test(message)) throw crashed();
      throw namedError(err instanceof WllamaError ? "WllamaInferenceError" : "WllamaRuntimeError", message);
    } finally {
      running.delete(request.id);
    }
    return { text: tally.text, finishReason: tally.finishReason, timings, usage: tally.usage };
  },

  async cancel(id: number): Promise<void> {
    const entry = running.get(id);
    if (!entry) return;
    entry.controller.abort();
    if (!entry.prefilling || !wllama) return;
    // wllama checks the signal only between its calls into llama.cpp, and one call evaluates the
    // whole prompt: a Stop during a long prefill would wait for all of it (85 s measured,
    // bench/RESULTS.md). Ending llama.cpp's worker stops it at once; the next request loads
    // the model again (seconds, from the browser's storage) and its prompt is evaluated afresh.
    const old = wllama;
    wllama = null;
    reloadAfterStop = true;
    await old.exit().catch(() => undefined);
  },

  async unload(): Promise<void> {
    reloadAfterStop = false;
    lastLoad = null;
    for (const c of running.values()) c.controller.abort();
    running.clear();
    const old = wllama;
    wllama = null;
    await old?.exit().catch(() => undefined);
  },
};

self.addEventListener("unhandledrejection", (event: PromiseRejectionEvent) => {
  const reason = event.reason instanceof Error ? `${event.reason.name}: ${event.reason.message}` : String(event.reason);
  post({ rlmWllamaWorkerDiagnostic: "error", message: reason });
});

Comlink.expose(api);
post({ rlmWllamaWorkerDiagnostic: "ready", message: "" });

/**
 * The build that can run in this worker. Ours is linked with pthreads, so it needs shared memory
 * even at one thread; where a worker has no SharedArrayBuffer (WebKitGTK reports the page
 * cross-origin isolated, yet gives its workers none), wllama's own builds run instead: its compat
 * build falls back to one thread there by itself. Slower (no SIMD dot products), but it answers.
 */
/** A Wllama for this load, on the build chosen for this browser. */
function newInstance(request: WllamaLoadRequest, build: WllamaLoadRequest["build"], relaxed: boolean): Wllama {
  // Models reach llama.cpp as Blobs (model-store.ts), never through wllama's downloader: its
  // cache manager is never used, and its default one throws where the page has no storage
  // (WebKitGTK under automation), so it gets a stand-in that is only ever stored.
  const instance = new Wllama(
    { default: request.assets.wasm },
    {
      logger,
      suppressNativeLog: false,
      cacheManager: NO_DOWNLOADS,
      modelManager: NO_DOWNLOADS_MODELS,
      // Our SIMD build reports the llama.cpp it was built from (docs/llama-wasm-build.md), not
      // the one wllama's JavaScript was released with; the glue protocol is wllama's own.
      skipVersionCheck: build === "simd",
    },
  );
  // Never the CDN default: the compat build is served by the page like every other file.
  // 'firefox_safari' lets a Firefox without JSPI use it too (wllama's default leaves it broken).
  instance.setCompat({ wasm: request.assets.compatWasm, worker: request.assets.compatWorker }, "firefox_safari");
  if (build === "compat") forceCompat(instance, request.assets.compatWasm, request.assets.compatWorker);
  // Our relaxed-SIMD wasm where this browser validates relaxed SIMD (it would not compile elsewhere);
  // both wasms are one link apart and share the glue.
  if (build === "simd") forceCompat(instance, relaxed ? request.assets.relaxedWasm : request.assets.simdWasm, request.assets.simdWorker);
  return instance;
}

/** The stored model's parts into llama.cpp, with the request's context and cache settings. */
async function loadStoredModel(instance: Wllama, request: WllamaLoadRequest, progress: ReturnType<typeof loadReporter>): Promise<void> {
  const { parts } = await openStoredModel(request.modelId);
  const files = progress.files(parts.map((f) => (f.blob instanceof File && f.blob.name === f.name ? f.blob : new File([f.blob], f.name))));
  await instance.loadModel(files, {
    n_ctx: request.kvTokens,
    n_parallel: request.slots,
    n_threads: request.threads,
    // CPU only: wllama's WebGPU path has produced garbage on Linux/Vulkan (wllama #218).
    n_gpu_layers: 0,
    // Stop is checked between batches: 512 keeps a cancelled prefill to one batch's time.
    n_batch: 512,
    n_ubatch: 512,
    ...(request.kvCacheType ? { cache_type_k: request.kvCacheType, cache_type_v: request.kvCacheType } : {}),
    ...(request.flashAttention !== undefined ? { flash_attn: request.flashAttention } : {}),
  });
  // llama.cpp can abort inside the load (an unknown architecture) and wllama still resolve:
  // its own log says whether the model really loaded.
  if (recentLog.some((line) => LOAD_FAILED.test(line))) throw new Error("llama.cpp aborted while loading the model");
}

/** What the page learns of a finished load. */
function loadOutcome(instance: Wllama, build: WllamaLoadRequest["build"], relaxed: boolean, started: number): WllamaLoadOutcome {
  const info = instance.getLoadedContextInfo();
  return {
    seconds: (performance.now() - started) / 1000,
    threads: instance.getNumThreads(),
    multiThread: instance.isMultithread(),
    compat: instance.getWorkerResources().compat,
    simd: build === "simd",
    relaxedSimd: relaxed,
    kvTokens: info.n_ctx,
    trainedContext: info.n_ctx_train,
    hasChatTemplate: !!instance.getChatTemplate(),
    memoryLog: recentLog.filter((line) => MEMORY_LINE.test(line)),
  };
}

function buildHere(asked: WllamaLoadRequest["build"]): WllamaLoadRequest["build"] {
  return asked === "simd" && typeof SharedArrayBuffer === "undefined" ? undefined : asked;
}

/**
 * The compat build where wllama would pick the default one: wllama decides by feature checks
 * alone (no JSPI or no Memory64), and a browser cannot be made to fail them, so the choice it
 * returns is replaced with the one it returns on WebKit.
 */
function forceCompat(instance: Wllama, wasm: string, worker: string): void {
  const own = instance as unknown as { getWorkerResources(): { wasmPath: string; jsPath?: string; compat: boolean } };
  own.getWorkerResources = () => ({
    wasmPath: new URL(wasm, self.location.href).href,
    jsPath: worker,
    compat: true,
  });
}
