// The ways a local (WebLLM) model can fail, one class each, with a message that says what to do;
// and the mapping from what WebLLM throws to them. WebLLM does not export its error classes and
// Comlink keeps only name/message/stack across the worker boundary (the subclass is lost), so
// the mapping matches on name and message. Strings (WebLLM's own worker protocol rejects with
// `err.toString()`) are accepted too.
import { ContextWindowExceededError, EngineAbortedError, EngineError } from "../errors.ts";

export const WEBGPU_SUPPORT_HINT =
  "Use Chrome or Edge 113 or newer on Windows, macOS or ChromeOS; on Linux, Chrome needs " +
  "chrome://flags/#enable-unsafe-webgpu (it is on by default only for recent Intel GPUs); Firefox 141 or newer on Windows; " +
  "or Safari 26. The page must be opened over https or from localhost. " +
  "Without WebGPU you can still use an OpenAI-compatible server (Settings).";

export class WebGPUUnavailableError extends EngineError {
  override name = "WebGPUUnavailableError";
  constructor(readonly detail: string) {
    super(`This browser cannot run local models because WebGPU is not available (${detail}). ${WEBGPU_SUPPORT_HINT}`);
  }
}

export class GpuDeviceLostError extends EngineError {
  override name = "GpuDeviceLostError";
  constructor(readonly detail: string) {
    super(
      `The GPU stopped responding (WebGPU device lost${detail ? `: ${detail}` : ""}). Reload the model to continue; ` +
        "your conversation is kept. If it keeps happening, choose a smaller model or context window.",
    );
  }
}

export class GpuOutOfMemoryError extends EngineError {
  override name = "GpuOutOfMemoryError";
  constructor(
    readonly modelId: string,
    readonly contextWindow: number | undefined,
    readonly detail: string,
  ) {
    super(
      `The GPU ran out of memory while loading ${modelId}${contextWindow ? ` with a ${contextWindow.toLocaleString("en-US")}-token window` : ""}. ` +
        "Choose a smaller model or a smaller context window, and close other tabs that use the GPU." +
        (detail ? ` (${detail})` : ""),
    );
  }
}

export class GpuLimitsError extends EngineError {
  override name = "GpuLimitsError";
  constructor(readonly detail: string) {
    super(
      `This GPU's WebGPU limits are too small for WebLLM (${detail}). Try the smallest model, a newer browser, ` +
        "or an OpenAI-compatible server (Settings).",
    );
  }
}

export class GpuFeatureMissingError extends EngineError {
  override name = "GpuFeatureMissingError";
  constructor(
    readonly modelId: string,
    readonly feature: string,
  ) {
    super(
      `${modelId} needs the WebGPU feature "${feature}", which this GPU or browser does not offer. ` +
        (feature === "shader-f16" ? "Choose the q4f32_1 build of the model instead." : "Choose another model."),
    );
  }
}

export class ModelNotDownloadedError extends EngineError {
  override name = "ModelNotDownloadedError";
  constructor(
    readonly modelId: string,
    readonly detail: string,
  ) {
    super(
      `${modelId} is not downloaded yet, and it could not be fetched because the network is unavailable (${detail}). ` +
        "Connect to the internet and load it once to download it; after that it works offline. " +
        "If a download was interrupted, loading again resumes it: the parts already downloaded are kept.",
    );
  }
}

export class ModelDownloadError extends EngineError {
  override name = "ModelDownloadError";
  constructor(
    readonly modelId: string,
    readonly detail: string,
  ) {
    super(
      `Downloading part of ${modelId} failed (${detail}). Check the connection and, for a custom model, its URLs; ` +
        "then load it again. The parts already downloaded are kept.",
    );
  }
}

export class ModelLibraryError extends EngineError {
  override name = "ModelLibraryError";
  constructor(
    readonly modelId: string,
    readonly detail: string,
  ) {
    super(
      `The model library (.wasm) for ${modelId} could not be used (${detail}). Check the model library URL: it must ` +
        "point at a WebGPU library compiled for this WebLLM version.",
    );
  }
}

export class ModelLoadError extends EngineError {
  override name = "ModelLoadError";
  constructor(
    readonly modelId: string,
    readonly detail: string,
  ) {
    super(`Loading ${modelId} failed: ${detail}. Try again; if it fails again, choose another model.`);
  }
}

export class LocalModelNotLoadedError extends EngineError {
  override name = "LocalModelNotLoadedError";
  constructor() {
    super("No local model is loaded. Load a model first (or reload it if it was unloaded).");
  }
}

export class LocalModelError extends EngineError {
  override name = "LocalModelError";
  constructor(readonly detail: string) {
    super(`The local model failed: ${detail}. Try again, or reload the model.`);
  }
}

export class ModelWorkerCrashedError extends EngineError {
  override name = "ModelWorkerCrashedError";
  constructor(readonly detail: string) {
    super(`The model worker stopped unexpectedly (${detail}). Reload the model; if that fails, reload the page.`);
  }
}

export interface CustomModelProblem {
  field: "id" | "modelUrl" | "modelLibUrl" | "contextWindow" | "vramMB";
  message: string;
}

export class CustomModelError extends EngineError {
  override name = "CustomModelError";
  constructor(readonly problems: CustomModelProblem[]) {
    super(`The custom model cannot be added: ${problems.map((p) => p.message).join(" ")}`);
  }
}

// --------------------------------------------------------------------------------------------

export interface RawError {
  name: string;
  message: string;
}

/** Name and message from an Error, a Comlink-revived Error, a "Name: message" string, or anything. */
export function describeRawError(err: unknown): RawError {
  if (err instanceof Error) return { name: err.name || "Error", message: err.message };
  if (typeof err === "string") {
    const m = /^((?:[A-Za-z][\w$]*)?(?:Error|Exception))(?::\s*([\s\S]*))?$/.exec(err.trim());
    if (m) return { name: m[1]!, message: (m[2] ?? "").trim() };
    return { name: "Error", message: err };
  }
  if (err && typeof err === "object") {
    const o = err as { name?: unknown; message?: unknown };
    if (typeof o.message === "string") return { name: typeof o.name === "string" ? o.name : "Error", message: o.message };
  }
  return { name: "Error", message: String(err) };
}

export interface ErrorContext {
  phase: "probe" | "load" | "chat" | "cache";
  modelId?: string;
  contextWindow?: number;
  /** Whether the model was fully in the browser cache (asked after a failed load). */
  modelCached?: boolean;
  /** navigator.onLine at the time of the failure. */
  online?: boolean;
  /** Set when the worker saw its WebGPU device lost (not destroyed by us). */
  deviceLost?: string | null;
}

const NETWORK_FAILURE =
  /Failed to fetch|NetworkError|network error|Load failed|ERR_INTERNET_DISCONNECTED|ERR_NAME_NOT_RESOLVED|ERR_CONNECTION|Cannot fetch /i;
const HTTP_FAILURE = /Request failed|status (?:code )?[45]\d\d|HTTP [45]\d\d/i;
const NO_WEBGPU = /WebGPU is not supported|Unable to find a compatible GPU|Cannot find WebGPU|navigator\.gpu/i;
const DEVICE_LOST = /device (?:was |is )?lost|DeviceLost|Instance dropped|GPU connection lost/i;
const OUT_OF_MEMORY = /out of memory|OutOfMemory|\bOOM\b|Failed to allocate|allocation failed|Not enough memory/i;
const LIMITS = /exceeds limit|Cannot initialize runtime because of requested/i;
const WASM = /CompileError|LinkError|WebAssembly\.(?:instantiate|compile)|expected magic word/i;
const CONTEXT = /Prompt tokens exceed context window size|ContextWindowSizeExceeded/i;

/** Maps anything WebLLM, the browser or the worker threw to one of the app's error classes. */
export function mapWebLLMError(err: unknown, ctx: ErrorContext): EngineError {
  if (err instanceof EngineError) return err;
  const { name, message } = describeRawError(err);
  const both = `${name}: ${message}`;
  const modelId = ctx.modelId ?? "the model";

  if (name === "AbortError" || /Reload\(\) is aborted|Engine\.unload\(\) is called/.test(message)) return new EngineAbortedError();

  if (name === "ContextWindowSizeExceededError" || CONTEXT.test(both)) {
    const numbers = /number of prompt tokens: (\d+); context window size: (\d+)/.exec(message);
    return new ContextWindowExceededError(
      numbers
        ? `It needs ${numbers[1]} tokens, but the window holds ${numbers[2]} (tokens already in the conversation count too).`
        : (message.split("\n")[0] ?? ""),
    );
  }

  if (name === "WebGPUNotAvailableError" || name === "WebGPUNotFoundError" || NO_WEBGPU.test(message)) {
    const detail = /navigator\.gpu is missing|WebGPU is not supported/i.test(message)
      ? "the browser has no WebGPU API (navigator.gpu)"
      : "the browser found no usable GPU adapter";
    return new WebGPUUnavailableError(detail);
  }

  if (name === "ShaderF16SupportError") return new GpuFeatureMissingError(modelId, "shader-f16");
  if (name === "FeatureSupportError") {
    const feature = /feature[^"']*["']?([\w-]+)["']?/i.exec(message)?.[1] ?? "a required feature";
    return new GpuFeatureMissingError(modelId, feature);
  }

  const lost = name === "DeviceLostError" || DEVICE_LOST.test(both);
  if (ctx.phase === "chat" && (ctx.deviceLost || lost)) return new GpuDeviceLostError(ctx.deviceLost ?? message);
  // WebLLM raises DeviceLostError during reload() for what is nearly always an out-of-memory.
  if (lost || OUT_OF_MEMORY.test(both)) {
    if (ctx.deviceLost && ctx.phase !== "load") return new GpuDeviceLostError(ctx.deviceLost);
    return new GpuOutOfMemoryError(modelId, ctx.contextWindow, lost ? "" : message);
  }

  if (LIMITS.test(message)) return new GpuLimitsError(message.replace(/\s+/g, " ").trim());

  if (ctx.phase === "load" || ctx.phase === "cache") {
    if (HTTP_FAILURE.test(message)) return new ModelDownloadError(modelId, message);
    if (NETWORK_FAILURE.test(both)) {
      if (ctx.modelCached === true && ctx.online !== false) return new ModelDownloadError(modelId, message);
      return new ModelNotDownloadedError(modelId, message);
    }
    if (WASM.test(both)) return new ModelLibraryError(modelId, message);
    if (name === "ModelNotFoundError") return new ModelLoadError(modelId, "WebLLM has no record for this model id");
    return new ModelLoadError(modelId, message || name);
  }

  if (name === "ModelNotLoadedError" || name === "EngineNotLoadedError" || /Model not loaded/i.test(message)) {
    return ctx.deviceLost ? new GpuDeviceLostError(ctx.deviceLost) : new LocalModelNotLoadedError();
  }
  return new LocalModelError(message || name);
}
