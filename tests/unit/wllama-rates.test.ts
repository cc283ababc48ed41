// The speed the page reports for this device comes from llama.cpp's own counts of the last calls.
import { describe, expect, it } from "vitest";
import type { CallRecord } from "../../src/engines/wllama/engine.ts";
import { measuredRates, ratesText } from "../../src/engines/wllama/rates.ts";

const call = (evaluatedTokens: number, promptMs: number, completionTokens: number, predictedMs: number): CallRecord => ({
  promptTokens: evaluatedTokens + 100,
  cachedTokens: 100,
  evaluatedTokens,
  completionTokens,
  promptMs,
  predictedMs,
});

describe("measuredRates", () => {
  it("pools every call: tokens over time, cached tokens left out", () => {
    const r = measuredRates([call(2000, 80_000, 10, 1000), call(1000, 40_000, 30, 3000)]);
    expect(r.prefill).toBeCloseTo(25);
    expect(r.decode).toBeCloseTo(10);
    expect(ratesText(r)).toBe("25 tokens/s reading prompts, 10 writing");
  });

  it("leaves out prompts of a few tokens, which measure llama.cpp's overhead, not its reading", () => {
    const r = measuredRates([call(3, 500, 5, 400), call(500, 20_000, 0, 0)]);
    expect(r.prefill).toBeCloseTo(25);
    expect(ratesText(r)).toBe("25 tokens/s reading prompts, 13 writing");
  });

  it("says nothing when nothing was measured", () => {
    expect(ratesText(measuredRates([]))).toBe("");
    expect(ratesText(measuredRates([call(4, 10, 0, 0)]))).toBe("");
    expect(ratesText({ prefill: null, decode: 8.75 })).toBe("8.8 writing");
  });
});
