import { describe, expect, it } from "vitest";
import { findCatalogEntry } from "../../src/engines/webllm/catalog.ts";
import { checkCustomModel } from "../../src/engines/webllm/custom-model.ts";
import {
  defaultWindowFor,
  estimateEnginesVramMB,
  estimateVramMB,
  kvBytesPerLayer,
  kvBytesPerToken,
  kvCacheMB,
  windowOptions,
} from "../../src/engines/webllm/memory.ts";

const qwen3_4b = findCatalogEntry("Qwen3-4B-q4f16_1-MLC")!;
const qwen3_4b_f32 = findCatalogEntry("Qwen3-4B-q4f32_1-MLC")!;
const coder3b = findCatalogEntry("Qwen2.5-Coder-3B-Instruct-q4f16_1-MLC")!;
const q05 = findCatalogEntry("Qwen2.5-0.5B-Instruct-q4f16_1-MLC")!;

describe("KV cache size", () => {
  it("is layers × 2 × kv_heads × head_dim × bytes per token", () => {
    expect(kvBytesPerToken(qwen3_4b.architecture!, true)).toBe(36 * 2 * 8 * 128 * 2);
    expect(kvBytesPerToken(qwen3_4b.architecture!, false)).toBe(36 * 2 * 8 * 128 * 4);
    expect(kvBytesPerToken(q05.architecture!, true)).toBe(24 * 2 * 2 * 64 * 2);
    expect(kvCacheMB(qwen3_4b.architecture!, true, 4096)).toBe(576);
    expect(kvCacheMB(coder3b.architecture!, true, 32768)).toBe(1152);
    expect(kvBytesPerLayer(qwen3_4b.architecture!, false, 32768)).toBe(256 * 1024 * 1024);
  });
});

describe("VRAM per window", () => {
  it("is WebLLM's 4K figure plus the KV growth", () => {
    expect(estimateVramMB(qwen3_4b, 4096)).toBe(3431.59);
    expect(estimateVramMB(qwen3_4b, 32768)).toBeCloseTo(3431.59 + 4608 - 576, 2);
    expect(estimateVramMB(coder3b, 16384)).toBeCloseTo(2504.76 + 576 - 144, 2);
    expect(estimateVramMB(qwen3_4b_f32, 8192)).toBeCloseTo(4327.71 + 1152, 2);
  });

  it("marks windows that exceed the memory budget or one storage-buffer binding", () => {
    const opts = windowOptions(qwen3_4b, { budgetMB: 6144, maxStorageBufferBindingSize: 1024 ** 3 });
    expect(opts.map((o) => [o.window, o.fit])).toEqual([
      [4096, "fits"], // 3431.59 MB
      [8192, "fits"], // 4007.59 MB
      [16384, "fits"], // 5159.59 MB
      [32768, "too-big"], // 7463.59 MB > 6144 MB
    ]);
    expect(opts[2]!.vramMB).toBeCloseTo(5159.59, 2);
    expect(opts[3]!.note).toMatch(/more than this GPU is likely to have free/);

    const narrow = windowOptions(qwen3_4b_f32, { budgetMB: 100_000, maxStorageBufferBindingSize: 128 * 1024 * 1024 });
    // f32 KV: 4K → 32 MB per layer, 32K → 256 MB per layer > 128 MB binding.
    expect(narrow.find((o) => o.window === 16384)!.fit).toBe("fits"); // exactly 128 MB
    expect(narrow.find((o) => o.window === 32768)!.fit).toBe("too-big");
    expect(narrow.find((o) => o.window === 32768)!.note).toMatch(/largest buffer binding/);
  });

  it("without a GPU budget gives estimates but no verdict", () => {
    const opts = windowOptions(coder3b, undefined);
    expect(opts.every((o) => o.fit === "unknown")).toBe(true);
    expect(opts[0]!.note).toBe("about 2.4 GB of GPU memory");
  });

  it("defaults to 4K for catalog models and to a custom model's own window", () => {
    expect(defaultWindowFor(coder3b)).toBe(4096);
    const custom = checkCustomModel({
      id: "Tiny-q4f32_1-MLC",
      modelUrl: "https://example.com/m/Tiny",
      modelLibUrl: "https://example.com/m/tiny.wasm",
      contextWindow: 2048,
      vramMB: 700,
    }).spec!;
    expect(defaultWindowFor(custom)).toBe(2048);
    const opts = windowOptions(custom, { budgetMB: 3000, maxStorageBufferBindingSize: 1024 ** 3 });
    expect(opts).toEqual([{ window: 2048, vramMB: 700, kvMB: undefined, fit: "fits", note: "about 700 MB of GPU memory" }]);
  });

  it("sums a root and a separate sub-call engine", () => {
    expect(estimateEnginesVramMB({ spec: coder3b, window: 4096 })).toBe(2504.76);
    expect(estimateEnginesVramMB({ spec: coder3b, window: 4096 }, { spec: q05, window: 4096 })).toBeCloseTo(2504.76 + 944.62, 2);
    expect(estimateEnginesVramMB({ spec: coder3b, window: 8192 }, { spec: coder3b, window: 4096 })).toBeCloseTo(2 * 2504.76 + 144, 2);
  });
});
