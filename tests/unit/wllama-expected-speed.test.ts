// The catalog's speed estimates follow what was measured in the page (bench/RESULTS.md).
import { describe, expect, it } from "vitest";
import { CPU_CATALOG, expectedSpeed } from "../../src/engines/wllama/catalog.ts";

const model = (id: string) => CPU_CATALOG.find((m) => m.id === id)!;

describe("expectedSpeed", () => {
  it("gives the measured figures for the measured shapes", () => {
    expect(expectedSpeed(model("qwen2.5-0.5b-instruct-q8_0"))).toEqual({ prefill: 13, decode: 8.8 });
    expect(expectedSpeed(model("qwen2.5-1.5b-instruct-q8_0"))).toEqual({ prefill: 3, decode: 2.8 });
    const k = expectedSpeed(model("qwen2.5-1.5b-instruct-q4_k_m"));
    expect(k.prefill).toBeCloseTo(6);
    expect(k.decode).toBeCloseTo(4.2);
  });

  it("gives Qwen2.5-0.5B's Q4_K_M no K-quant gain: its rows take a fallback type", () => {
    expect(expectedSpeed(model("qwen2.5-0.5b-instruct-q4_k_m"))).toEqual(expectedSpeed(model("qwen2.5-0.5b-instruct-q8_0")));
  });

  it("scales by parameters from the nearest measured shape: bigger is slower, Q4_K_M faster than Q8_0", () => {
    const small = expectedSpeed(model("qwen3-0.6b-q8_0"));
    const big = expectedSpeed(model("qwen3-1.7b-q8_0"));
    expect(small.prefill).toBeLessThan(13);
    expect(big.decode).toBeLessThan(2.8);
    expect(expectedSpeed(model("qwen3-1.7b-q4_k_m")).decode).toBeGreaterThan(big.decode);
  });
});
