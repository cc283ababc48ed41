import { describe, expect, it } from "vitest";
import { ContextWindowExceededError, EngineAbortedError } from "../../src/engines/errors.ts";
import {
  GpuDeviceLostError,
  GpuFeatureMissingError,
  GpuLimitsError,
  GpuOutOfMemoryError,
  LocalModelNotLoadedError,
  ModelDownloadError,
  ModelLibraryError,
  ModelLoadError,
  ModelNotDownloadedError,
  WebGPUUnavailableError,
  describeRawError,
  mapWebLLMError,
} from "../../src/engines/webllm/errors.ts";

/** An Error as it arrives through Comlink: plain Error, name and message kept. */
function revived(name: string, message: string): Error {
  const e = new Error(message);
  e.name = name;
  return e;
}

// Messages copied from @mlc-ai/web-llm 0.2.86 lib/index.js.
const CONTEXT_MSG =
  "Prompt tokens exceed context window size: number of prompt tokens: 5012; context window size: 4096\n" +
  "Consider shortening the prompt, or increase `context_window_size`, or using sliding window via `sliding_window_size`.";
const NO_WEBGPU_MSG =
  "WebGPU is not supported in your current environment, but it is necessary to run the WebLLM engine. Please make sure that your browser supports WebGPU and that it is enabled in your browser settings.";
const NO_ADAPTER_MSG =
  "Unable to find a compatible GPU. This issue might be because your computer doesn't have a GPU, or your system settings are not configured properly.";
const DEVICE_LOST_MSG =
  "The WebGPU device was lost while loading the model. This issue often occurs due to running out of memory (OOM). To resolve this, try reloading with a model that has fewer parameters or uses a smaller context length.";

const load = { phase: "load" as const, modelId: "Qwen3-4B-q4f16_1-MLC", contextWindow: 8192 };
const chat = { phase: "chat" as const, modelId: "Qwen3-4B-q4f16_1-MLC", contextWindow: 4096 };

describe("describeRawError", () => {
  it("reads Errors, WebLLM worker strings ('Name: message') and plain objects", () => {
    expect(describeRawError(revived("DeviceLostError", "x"))).toEqual({ name: "DeviceLostError", message: "x" });
    expect(describeRawError(`ContextWindowSizeExceededError: ${CONTEXT_MSG}`)).toEqual({
      name: "ContextWindowSizeExceededError",
      message: CONTEXT_MSG,
    });
    expect(describeRawError("Error: Unable to find a compatible GPU.")).toEqual({
      name: "Error",
      message: "Unable to find a compatible GPU.",
    });
    expect(describeRawError("just text")).toEqual({ name: "Error", message: "just text" });
    expect(describeRawError({ name: "TypeError", message: "Failed to fetch" })).toEqual({ name: "TypeError", message: "Failed to fetch" });
  });
});

describe("mapWebLLMError", () => {
  it("maps ContextWindowSizeExceededError (Error or string) to our ContextWindowExceededError with the numbers", () => {
    for (const raw of [revived("ContextWindowSizeExceededError", CONTEXT_MSG), `ContextWindowSizeExceededError: ${CONTEXT_MSG}`]) {
      const mapped = mapWebLLMError(raw, chat);
      expect(mapped).toBeInstanceOf(ContextWindowExceededError);
      expect(mapped.message).toMatch(/needs 5012 tokens, but the window holds 4096/);
    }
  });

  it("maps a missing WebGPU API and a missing adapter to WebGPUUnavailableError naming browsers and flags", () => {
    const noApi = mapWebLLMError(revived("WebGPUNotAvailableError", NO_WEBGPU_MSG), load);
    expect(noApi).toBeInstanceOf(WebGPUUnavailableError);
    expect(noApi.message).toMatch(/no WebGPU API/);
    const noAdapter = mapWebLLMError(`Error: ${NO_ADAPTER_MSG}`, { phase: "probe" });
    expect(noAdapter).toBeInstanceOf(WebGPUUnavailableError);
    expect(noAdapter.message).toMatch(/no usable GPU adapter/);
    for (const needle of ["Chrome or Edge 113", "chrome://flags/#enable-unsafe-webgpu", "Firefox 141", "Safari 26"]) {
      expect(noAdapter.message).toContain(needle);
    }
  });

  it("maps DeviceLostError during load to out-of-memory, and device loss during chat to GpuDeviceLostError", () => {
    const oom = mapWebLLMError(revived("DeviceLostError", DEVICE_LOST_MSG), load);
    expect(oom).toBeInstanceOf(GpuOutOfMemoryError);
    expect(oom.message).toMatch(/ran out of memory while loading Qwen3-4B-q4f16_1-MLC with a 8,192-token window/);
    expect(oom.message).toMatch(/smaller model or a smaller context window/);
    const lost = mapWebLLMError(revived("Error", "GPU operation failed"), { ...chat, deviceLost: "Device was destroyed by the driver" });
    expect(lost).toBeInstanceOf(GpuDeviceLostError);
    expect(lost.message).toMatch(/Reload the model to continue; your conversation is kept/);
    // WebLLM unloads the model when the device is lost; the next request says "Model not loaded".
    expect(
      mapWebLLMError(revived("ModelNotLoadedError", "Model not loaded before trying to complete"), { ...chat, deviceLost: "x" }),
    ).toBeInstanceOf(GpuDeviceLostError);
    expect(mapWebLLMError(revived("ModelNotLoadedError", "Model not loaded before trying to complete"), chat)).toBeInstanceOf(
      LocalModelNotLoadedError,
    );
    expect(mapWebLLMError(revived("Error", "Failed to allocate buffer: out of memory"), load)).toBeInstanceOf(GpuOutOfMemoryError);
  });

  it("maps a failed fetch of an uncached model to 'download it once online'", () => {
    const err = mapWebLLMError(new TypeError("Failed to fetch"), { ...load, modelCached: false, online: true });
    expect(err).toBeInstanceOf(ModelNotDownloadedError);
    expect(err.message).toMatch(/is not downloaded yet/);
    expect(err.message).toMatch(/Connect to the internet and load it once to download it; after that it works offline/);
    // Offline even if the weights were cached (e.g. the library is missing): still the same advice.
    expect(mapWebLLMError(new TypeError("Failed to fetch"), { ...load, modelCached: true, online: false })).toBeInstanceOf(
      ModelNotDownloadedError,
    );
    // Online, weights cached, something else failed to fetch: a retryable download error.
    expect(mapWebLLMError(new TypeError("Failed to fetch"), { ...load, modelCached: true, online: true })).toBeInstanceOf(
      ModelDownloadError,
    );
  });

  it("maps an HTTP error from Cache.add to ModelDownloadError", () => {
    const err = mapWebLLMError(new TypeError("Failed to execute 'add' on 'Cache': Request failed"), { ...load, modelCached: false });
    expect(err).toBeInstanceOf(ModelDownloadError);
    expect(err.message).toMatch(/parts already downloaded are kept/);
  });

  it("maps limits, features, wasm and abort errors", () => {
    expect(
      mapWebLLMError(
        "Error: Cannot initialize runtime because of requested maxStorageBufferBindingSize exceeds limit. requested=128MB, limit=64MB. ",
        load,
      ),
    ).toBeInstanceOf(GpuLimitsError);
    expect(mapWebLLMError(revived("ShaderF16SupportError", "This model requires WebGPU extension shader-f16"), load)).toBeInstanceOf(
      GpuFeatureMissingError,
    );
    expect(mapWebLLMError(revived("CompileError", "WebAssembly.instantiate(): expected magic word 00 61 73 6d"), load)).toBeInstanceOf(
      ModelLibraryError,
    );
    expect(mapWebLLMError(new DOMException("aborted", "AbortError"), load)).toBeInstanceOf(EngineAbortedError);
    const other = mapWebLLMError(revived("Error", "something odd"), load);
    expect(other).toBeInstanceOf(ModelLoadError);
    expect(other.message).toBe("Loading Qwen3-4B-q4f16_1-MLC failed: something odd. Try again; if it fails again, choose another model.");
  });

  it("passes our own errors through unchanged", () => {
    const ours = new ModelNotDownloadedError("m", "x");
    expect(mapWebLLMError(ours, chat)).toBe(ours);
  });
});
