import { describe, expect, it } from "vitest";
import { missingModel, remedyFor } from "../../src/app/remedies.ts";

describe("the button under a failed question", () => {
  it("opens the endpoint tab when the endpoint has no model or cannot be reached", () => {
    expect(
      remedyFor("No model is set for the OpenAI-compatible endpoint. Open Settings and enter the model name.", "openai", false)?.tab,
    ).toBe("openai");
    expect(remedyFor("Could not reach the model server at http://x/v1 (fetch failed).", "openai", true)?.tab).toBe("openai");
  });

  it("opens the local tab for a missing local model, but the CPU (model file) tab without WebGPU", () => {
    const msg = "No local model is chosen. Open Settings and pick one, or use an OpenAI-compatible endpoint.";
    // The message names both; without WebGPU, llama.cpp on the CPU is the local model that can help.
    expect(remedyFor(msg, "webllm", true)?.tab).toBe("webllm");
    expect(remedyFor(msg, "webllm", false)?.tab).toBe("wllama");
  });

  it("opens the model-file tab for a llama.cpp or GGUF failure", () => {
    const msg = "The chosen model file is no longer kept in this browser. Choose the .gguf file again in Settings (Model file).";
    expect(remedyFor(msg, "wllama", false)).toEqual({ label: "Open Settings (model file)", tab: "wllama" });
  });

  it("offers nothing Settings cannot fix", () => {
    expect(remedyFor("Python failed: out of memory", "openai", true)).toBeNull();
    expect(remedyFor(undefined, "openai", true)).toBeNull();
  });
});

describe("a question with nowhere to go is held, with the step that is missing", () => {
  const settings = (backend: "openai" | "webllm" | "wllama", baseUrl = "", model = "", modelId = "") => ({
    backend,
    openai: { baseUrl, model },
    webllm: { modelId },
    wllama: { modelId },
  });

  it("holds it without WebGPU and a WebLLM model chosen, and points at a model file for the CPU", () => {
    expect(missingModel(settings("webllm"), false, null)).toMatchObject({ label: "Choose a model file (CPU)", tab: "wllama" });
  });

  it("holds it for llama.cpp until a model file is chosen", () => {
    expect(missingModel(settings("wllama"), false, null)).toMatchObject({ tab: "wllama" });
    expect(missingModel(settings("wllama", "", "", "tiny-123"), false, null)).toBeNull();
  });

  it("holds it for an endpoint with no base URL or no model", () => {
    expect(missingModel(settings("openai", "http://h/v1", ""), true, null)?.tab).toBe("openai");
    expect(missingModel(settings("openai", "", "m"), true, null)?.tab).toBe("openai");
  });

  it("holds it with WebGPU but no local model and nothing to recommend", () => {
    expect(missingModel(settings("webllm"), true, null)?.tab).toBe("webllm");
  });

  it("lets it go when a model is set, recommended, or while the GPU check is still running", () => {
    expect(missingModel(settings("openai", "http://h/v1", "m"), false, null)).toBeNull();
    expect(missingModel(settings("webllm", "", "", "Qwen3-0.6B"), true, null)).toBeNull();
    expect(missingModel(settings("webllm"), true, "Qwen3-0.6B")).toBeNull();
    expect(missingModel(settings("webllm"), null, null)).toBeNull();
  });
});
