import { describe, expect, it } from "vitest";
import { findCatalogEntry } from "../../src/engines/webllm/catalog.ts";
import { assessGpu, chooseVariant, recommendModel } from "../../src/engines/webllm/choice.ts";
import { checkCustomModel } from "../../src/engines/webllm/custom-model.ts";
import type { GpuAvailable, GpuProbe } from "../../src/engines/webllm/types.ts";

const GIB = 1024 ** 3;

function gpu(overrides: Partial<GpuAvailable> = {}, limits: Partial<GpuAvailable["limits"]> = {}): GpuAvailable {
  return {
    available: true,
    vendor: "nvidia",
    architecture: "ampere",
    description: "",
    isFallbackAdapter: false,
    shaderF16: true,
    deviceMemoryGB: 16,
    ...overrides,
    limits: {
      maxBufferSize: 4 * GIB,
      maxStorageBufferBindingSize: 2 * GIB,
      maxComputeWorkgroupStorageSize: 32768,
      maxStorageBuffersPerShaderStage: 10,
      maxComputeInvocationsPerWorkgroup: 1024,
      ...limits,
    },
  };
}

/** What Chromium's SwiftShader adapter reported on this machine. */
const SWIFTSHADER = gpu(
  { vendor: "google", architecture: "swiftshader", isFallbackAdapter: true, shaderF16: false },
  { maxBufferSize: GIB, maxStorageBufferBindingSize: GIB, maxComputeInvocationsPerWorkgroup: 256 },
);
const NO_ADAPTER: GpuProbe = { available: false, reason: "no-adapter", detail: "none", deviceMemoryGB: 8 };

describe("f16 twin selection", () => {
  const f16 = findCatalogEntry("Qwen3-4B-q4f16_1-MLC")!;

  it("keeps the q4f16_1 build when the adapter has shader-f16", () => {
    const choice = chooseVariant(f16, gpu());
    expect(choice.spec.id).toBe("Qwen3-4B-q4f16_1-MLC");
    expect(choice.note).toBeUndefined();
  });

  it("swaps to the q4f32_1 twin without shader-f16 and says so", () => {
    const choice = chooseVariant(f16, gpu({ shaderF16: false }));
    expect(choice.spec.id).toBe("Qwen3-4B-q4f32_1-MLC");
    expect(choice.note).toMatch(/shader-f16/);
    expect(choice.note).toContain("Qwen3-4B-q4f32_1-MLC");
    expect(choice.note).toMatch(/896 MB more GPU memory/); // 4327.71 − 3431.59
  });

  it("leaves a q4f32_1 choice alone on any GPU", () => {
    const f32 = findCatalogEntry("Qwen2.5-3B-Instruct-q4f32_1-MLC")!;
    expect(chooseVariant(f32, gpu({ shaderF16: false })).spec).toBe(f32);
    expect(chooseVariant(f32, gpu()).note).toBeUndefined();
  });

  it("warns about a custom f16 model that has no twin", () => {
    const spec = checkCustomModel({
      id: "My-q4f16_1-MLC",
      modelUrl: "https://example.com/m/My-q4f16_1-MLC",
      modelLibUrl: "https://example.com/libs/My-q4f16_1-webgpu.wasm",
    }).spec!;
    const choice = chooseVariant(spec, gpu({ shaderF16: false }));
    expect(choice.spec).toBe(spec);
    expect(choice.note).toMatch(/no 32-bit build/);
  });
});

describe("GPU assessment and recommendation", () => {
  it("recommends Qwen2.5-Coder-3B q4f16 on a capable discrete GPU", () => {
    const rec = recommendModel(gpu())!;
    expect(rec.assessment.tier).toBe("high");
    expect(rec.entry.id).toBe("Qwen2.5-Coder-3B-Instruct-q4f16_1-MLC");
    expect(rec.contextWindow).toBe(4096);
    expect(rec.windows.map((w) => w.window)).toEqual([4096, 8192, 16384, 32768]);
    expect(rec.windows.every((w) => w.fit === "fits")).toBe(true); // 3.5 GB at 32K < 6 GB budget
  });

  it("recommends Qwen2.5-1.5B on an integrated Intel GPU, and on a GPU with small buffers", () => {
    expect(recommendModel(gpu({ vendor: "intel", architecture: "gen-12lp" }))!.entry.id).toBe("Qwen2.5-1.5B-Instruct-q4f16_1-MLC");
    expect(recommendModel(gpu({}, { maxBufferSize: 1.5 * GIB }))!.assessment.tier).toBe("mid");
    expect(recommendModel(gpu({ deviceMemoryGB: 4 }))!.assessment.tier).toBe("mid");
    // Intel Arc (discrete) is not treated as integrated.
    expect(recommendModel(gpu({ vendor: "intel", architecture: "xe-hpg" }))!.assessment.tier).toBe("high");
  });

  it("falls to the smallest model when storage-buffer bindings are below 1 GB", () => {
    const rec = recommendModel(gpu({}, { maxStorageBufferBindingSize: 128 * 1024 * 1024 }))!;
    expect(rec.assessment.tier).toBe("low");
    expect(rec.entry.id).toBe("Qwen2.5-0.5B-Instruct-q4f16_1-MLC");
    expect(rec.notes.join(" ")).toMatch(/128 MB/);
  });

  it("on SwiftShader: software tier, q4f32 twin chosen and a note that says why", () => {
    const rec = recommendModel(SWIFTSHADER)!;
    expect(rec.assessment.tier).toBe("software");
    expect(rec.entry.id).toBe("Qwen2.5-0.5B-Instruct-q4f32_1-MLC");
    expect(rec.notes.join(" ")).toMatch(/software WebGPU adapter/);
    expect(rec.notes.join(" ")).toMatch(/shader-f16/);
  });

  it("returns nothing without an adapter", () => {
    expect(recommendModel(NO_ADAPTER)).toBeUndefined();
    expect(assessGpu(NO_ADAPTER).tier).toBe("none");
  });

  it("uses the VRAM the user states, stepping down to what fits", () => {
    const big = recommendModel(gpu({ vendor: "intel", architecture: "gen-12lp" }), { userVramGB: 12 })!;
    expect(big.assessment.budgetMB).toBe(Math.round(12 * 1024 * 0.85));
    expect(big.entry.id).toBe("Qwen2.5-Coder-3B-Instruct-q4f16_1-MLC");
    const small = recommendModel(gpu(), { userVramGB: 1.5 })!; // 1306 MB: only 0.5B (945 MB) fits
    expect(small.entry.id).toBe("Qwen2.5-0.5B-Instruct-q4f16_1-MLC");
    const two = recommendModel(gpu(), { userVramGB: 2.5 })!;
    expect(two.entry.id).toBe("Qwen2.5-1.5B-Instruct-q4f16_1-MLC"); // 1630 MB ≤ 2176 MB < 2505 MB
  });
});
