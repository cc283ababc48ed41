import { readFileSync } from "node:fs";
import { prebuiltAppConfig } from "@mlc-ai/web-llm";
import { describe, expect, it } from "vitest";
import { GENERATED_PATH, QWEN_MODEL_ID_PATTERN, renderFromInstalledPackage } from "../../scripts/extract-webllm-catalog.mjs";
import { PREBUILT_QWEN_RECORDS } from "../../src/engines/webllm/catalog.generated.ts";
import { CATALOG, estimateDownloadMB, findCatalogEntry, parseQwenModelId } from "../../src/engines/webllm/catalog.ts";
import { kvCacheMB } from "../../src/engines/webllm/memory.ts";

describe("generated catalog vs the installed @mlc-ai/web-llm", () => {
  it("is exactly what the extract script renders today (run the script after upgrading web-llm)", async () => {
    const fresh = await renderFromInstalledPackage();
    expect(readFileSync(GENERATED_PATH, "utf8")).toBe(fresh);
  });

  it("every generated record equals the prebuilt record with the same id", () => {
    const byId = new Map(prebuiltAppConfig.model_list.map((r) => [r.model_id, r]));
    for (const rec of PREBUILT_QWEN_RECORDS) {
      const live = byId.get(rec.model_id);
      expect(live, rec.model_id).toBeDefined();
      expect(rec.model).toBe(live!.model);
      expect(rec.model_lib).toBe(live!.model_lib);
      expect(rec.vram_required_MB).toBe(live!.vram_required_MB);
      expect(rec.low_resource_required).toBe(live!.low_resource_required);
      expect(rec.overrides?.context_window_size).toBe(live!.overrides?.context_window_size);
    }
    const expected = prebuiltAppConfig.model_list.filter((r) => QWEN_MODEL_ID_PATTERN.test(r.model_id)).length;
    expect(PREBUILT_QWEN_RECORDS.length).toBe(expected);
  });
});

describe("catalog content", () => {
  it("has Qwen2.5-Instruct 0.5B–7B, Qwen2.5-Coder 0.5B–7B and Qwen3 0.6B–8B, each in q4f16_1 and q4f32_1", () => {
    const want = [
      ...["0.5B", "1.5B", "3B", "7B"].flatMap((s) => [`Qwen2.5-${s}-Instruct`, `Qwen2.5-Coder-${s}-Instruct`]),
      ...["0.6B", "1.7B", "4B", "8B"].map((s) => `Qwen3-${s}`),
    ];
    for (const base of want) {
      for (const q of ["q4f16_1", "q4f32_1"]) expect(findCatalogEntry(`${base}-${q}-MLC`), `${base}-${q}`).toBeDefined();
    }
    expect(CATALOG).toHaveLength(24);
  });

  it("fills every field from the record and the architecture table", () => {
    for (const e of CATALOG) {
      expect(e.vramMB).toBeGreaterThan(500);
      expect(e.record.model).toBe(`https://huggingface.co/mlc-ai/${e.id}`);
      expect(e.record.model_lib).toMatch(
        /^https:\/\/raw\.githubusercontent\.com\/mlc-ai\/binary-mlc-llm-libs\/main\/web-llm-models\/v0_2_86\/.+\.wasm$/,
      );
      expect(e.f16).toBe(e.quantization === "q4f16_1");
      expect(e.twinId).toBe(e.f16 ? e.id.replace("q4f16_1", "q4f32_1") : e.id.replace("q4f32_1", "q4f16_1"));
      expect(e.architecture?.maxContextWindow).toBe(32768);
      expect(e.supportsThinkingToggle).toBe(e.family === "qwen3");
      expect(e.custom).toBe(false);
    }
    const coder3 = findCatalogEntry("Qwen2.5-Coder-3B-Instruct-q4f16_1-MLC")!;
    expect(coder3).toMatchObject({ family: "qwen2.5-coder", params: "3B", quantization: "q4f16_1", vramMB: 2504.76, lowResource: true });
    expect(coder3.architecture).toMatchObject({ layers: 36, kvHeads: 2, headDim: 128 });
    expect(findCatalogEntry("Qwen2.5-Coder-1.5B-Instruct-q4f16_1-MLC")!.lowResource).toBe(false);
    expect(findCatalogEntry("Qwen3-8B-q4f32_1-MLC")).toMatchObject({ family: "qwen3", params: "8B", f16: false, vramMB: 6852.55 });
  });

  it("parses ids and rejects others", () => {
    expect(parseQwenModelId("Qwen3-1.7B-q4f32_1-MLC")).toEqual({ family: "qwen3", params: "1.7B", quantization: "q4f32_1" });
    expect(parseQwenModelId("Qwen2.5-Coder-7B-Instruct-q4f16_1-MLC")).toEqual({
      family: "qwen2.5-coder",
      params: "7B",
      quantization: "q4f16_1",
    });
    expect(parseQwenModelId("Qwen2.5-Math-1.5B-Instruct-q4f16_1-MLC")).toBeUndefined();
    expect(parseQwenModelId("Llama-3.2-1B-Instruct-q4f16_1-MLC")).toBeUndefined();
  });

  it("estimates downloads from params × bits, and the estimate is below the measured VRAM minus the KV cache", () => {
    // 7.61e9 × 4.5 bits = 4.28 GB of weights, plus tokenizer and library.
    expect(estimateDownloadMB(7.61, "q4f16_1")).toBe(4290);
    expect(estimateDownloadMB(7.61, "q4f32_1")).toBe(4770);
    for (const e of CATALOG) {
      const weightsInVram = e.vramMB! - kvCacheMB(e.architecture!, e.f16, 4096);
      expect(e.downloadMBEstimate, e.id).toBeLessThan(weightsInVram);
      expect(e.downloadMBEstimate, e.id).toBeGreaterThan(weightsInVram * 0.3);
    }
  });
});
