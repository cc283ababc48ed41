import { describe, expect, it } from "vitest";
import { remedyFor } from "../../src/app/remedies.ts";

describe("the button under a failed question", () => {
  it("opens the endpoint tab when the endpoint has no model or cannot be reached", () => {
    expect(remedyFor("No model is set for the OpenAI-compatible endpoint. Open Settings and enter the model name.", "openai", false)?.tab).toBe("openai");
    expect(remedyFor("Could not reach the model server at http://x/v1 (fetch failed).", "openai", true)?.tab).toBe("openai");
  });

  it("opens the local tab for a missing local model, but the endpoint tab without WebGPU", () => {
    const msg = "No local model is chosen. Open Settings and pick one, or use an OpenAI-compatible endpoint.";
    // The message names both; without WebGPU only the endpoint can help.
    expect(remedyFor(msg, "webllm", true)?.tab).toBe("webllm");
    expect(remedyFor(msg, "webllm", false)?.tab).toBe("openai");
  });

  it("offers nothing Settings cannot fix", () => {
    expect(remedyFor("Python failed: out of memory", "openai", true)).toBeNull();
    expect(remedyFor(undefined, "openai", true)).toBeNull();
  });
});
