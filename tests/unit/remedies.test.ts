import { describe, expect, it } from "vitest";
import { missingModel, remedyFor } from "../../src/app/remedies.ts";
import type { EngineId } from "../../src/engines/registry.ts";

const withGpu = (): boolean => true;
const noGpu = (id: EngineId): boolean => id !== "webllm";

describe("the button under a failed question", () => {
  it("opens the endpoint tab when the endpoint has no model or cannot be reached", () => {
    expect(
      remedyFor("No model is set for the OpenAI-compatible endpoint. Open Settings and enter the model name.", "openai", noGpu)?.tab,
    ).toBe("openai");
    expect(remedyFor("Could not reach the model server at http://x/v1 (fetch failed).", "openai", withGpu)?.tab).toBe("openai");
  });

  it("opens the local tab for a missing local model, but the CPU (model file) tab without WebGPU", () => {
    const msg = "No local model is chosen. Open Settings and pick one, or use an OpenAI-compatible endpoint.";
    // The message names both; without WebGPU, llama.cpp on the CPU is the local model that can help.
    expect(remedyFor(msg, "webllm", withGpu)).toEqual({ label: "Open Settings (local model)", tab: "webllm" });
    expect(remedyFor(msg, "webllm", noGpu)).toEqual({ label: "Open Settings (model file)", tab: "wllama" });
  });

  it("opens the model-file tab for a llama.cpp or GGUF failure", () => {
    const msg = "The chosen model file is no longer kept in this browser. Choose the .gguf model file again in Settings.";
    expect(remedyFor(msg, "wllama", noGpu)).toEqual({ label: "Open Settings (model file)", tab: "wllama" });
  });

  it("offers nothing Settings cannot fix", () => {
    expect(remedyFor("Python failed: out of memory", "openai", withGpu)).toBeNull();
    expect(remedyFor(undefined, "openai", withGpu)).toBeNull();
  });
});

describe("a question with nowhere to go is held, with the step that is missing", () => {
  it("points at the engine whose settings are missing something", () => {
    expect(missingModel({ message: "needs a model", engine: "openai" }, noGpu)).toEqual({
      message: "needs a model",
      label: "Open Settings (endpoint)",
      tab: "openai",
    });
    expect(missingModel({ message: "pick a .gguf", engine: "wllama" }, noGpu)?.tab).toBe("wllama");
  });

  it("points at llama.cpp on the CPU when WebLLM cannot run here", () => {
    expect(missingModel({ message: "no WebGPU", engine: "webllm" }, noGpu)).toMatchObject({ tab: "wllama" });
    expect(missingModel({ message: "no model", engine: "webllm" }, withGpu)).toMatchObject({ tab: "webllm" });
  });

  it("lets it go when nothing is missing", () => {
    expect(missingModel(null, noGpu)).toBeNull();
  });
});
