// The local model's memory plan: weights + KV cache per token × window × sequences + compute
// buffers against what is available, before anything is loaded.
import { describe, expect, it } from "vitest";
import { ContextWindowTooLargeError, ModelTooLargeError } from "../../src/engines/errors.ts";
import { planMemory, type ModelCosts } from "../../src/engines/llama-node/memory.ts";

const MiB = 1024 ** 2;
const GiB = 1024 ** 3;

/** Qwen2.5-0.5B at Q8_0: 507 MiB of weights, 12 KiB of KV cache per token, 32K trained; 300 MiB of compute. */
const qwen05: ModelCosts = {
  label: "qwen2.5-0.5b",
  weightsBytes: 507 * MiB,
  kvBytesPerToken: 12 * 1024,
  trainedContext: 32_768,
  computeBytes: (window, sequences) => 12 * 1024 * window * sequences + 300 * MiB,
};

describe("the local model's memory plan", () => {
  it("gives the trained window and every sub-call slot when they fit", () => {
    const plan = planMemory({ root: qwen05, rootSequences: 1, subSequences: 4, availableBytes: 16 * GiB });
    expect(plan.window).toBe(32_768);
    expect(plan.models[0]).toMatchObject({ sequences: 5, kvBytes: 12 * 1024 * 32_768 * 5, computeBytes: 300 * MiB });
    expect(plan.totalBytes).toBe(507 * MiB + 1.875 * GiB + 300 * MiB);
    expect(plan.reason).toMatch(/trained window, which fits in 80 % of the 16.0 GiB available/);
  });

  it("gives up sub-call slots first, then halves the window, to fit 80 % of memory", () => {
    const fewerSlots = planMemory({ root: qwen05, rootSequences: 1, subSequences: 4, availableBytes: 2.6 * GiB });
    expect(fewerSlots).toMatchObject({ window: 32_768, models: [{ sequences: 3 }] });
    const smaller = planMemory({ root: qwen05, rootSequences: 1, subSequences: 4, availableBytes: 1.5 * GiB });
    expect(smaller.window).toBe(16_384);
    expect(smaller.models[0]!.sequences).toBe(2);
    expect(smaller.reason).toMatch(/capped from the trained 32,768 tokens/);
  });

  it("refuses an explicit window that does not fit, with the sums", () => {
    const plan = () => planMemory({ root: qwen05, rootSequences: 1, subSequences: 4, requestedWindow: 32_768, availableBytes: 1 * GiB });
    expect(plan).toThrow(ModelTooLargeError);
    expect(plan).toThrow(
      "The model does not fit in memory: weights 507 MiB + KV cache 12 KiB/token × 32,768 tokens × 2 sequences (768 MiB) + compute buffers 300 MiB = 1.5 GiB, and this machine has 1.0 GiB available. Use a smaller --context-window",
    );
  });

  it("refuses a window longer than the model was trained for", () => {
    expect(() =>
      planMemory({ root: qwen05, rootSequences: 1, subSequences: 4, requestedWindow: 65_536, availableBytes: 64 * GiB }),
    ).toThrow(ContextWindowTooLargeError);
  });

  it("adds a second sub-call model's own weights and cache", () => {
    const sub: ModelCosts = { ...qwen05, label: "sub", trainedContext: 8192 };
    const plan = planMemory({ root: qwen05, sub, rootSequences: 1, subSequences: 4, requestedWindow: 16_384, availableBytes: 16 * GiB });
    expect(plan.models.map((m) => [m.costs.label, m.window, m.sequences])).toEqual([
      ["qwen2.5-0.5b", 16_384, 1],
      ["sub", 8192, 4],
    ]);
  });
});
