import { describe, expect, it } from "vitest";
import { checkCustomModel, customModelSpec, resolveWeightsBaseUrl } from "../../src/engines/webllm/custom-model.ts";
import { CustomModelError } from "../../src/engines/webllm/errors.ts";

const good = {
  id: "MyQwen3-1.7B-q4f16_1-MLC",
  modelUrl: "https://models.example.org/MyQwen3-1.7B-q4f16_1-MLC",
  modelLibUrl: "https://models.example.org/libs/MyQwen3-1.7B-q4f16_1-webgpu.wasm",
  contextWindow: 8192,
};

describe("resolveWeightsBaseUrl (WebLLM's cleanModelUrl)", () => {
  it("appends resolve/main/ unless the URL has /resolve/<rev>/", () => {
    expect(resolveWeightsBaseUrl("https://h/m/X-MLC")).toBe("https://h/m/X-MLC/resolve/main/");
    expect(resolveWeightsBaseUrl("https://h/m/X-MLC/")).toBe("https://h/m/X-MLC/resolve/main/");
    expect(resolveWeightsBaseUrl("https://huggingface.co/u/X/resolve/v2/")).toBe("https://huggingface.co/u/X/resolve/v2/");
    expect(() => resolveWeightsBaseUrl("/models/X")).toThrow(TypeError);
  });
});

describe("checkCustomModel", () => {
  it("accepts absolute http(s) URLs and builds a WebLLM record with the chosen window", () => {
    const check = checkCustomModel(good);
    expect(check.problems).toEqual([]);
    expect(check.spec).toMatchObject({
      id: good.id,
      custom: true,
      f16: true,
      supportsThinkingToggle: true,
      maxContextWindow: 8192,
      record: { model_id: good.id, model: good.modelUrl, model_lib: good.modelLibUrl, overrides: { context_window_size: 8192 } },
    });
    expect(check.notes[0]).toContain("https://models.example.org/MyQwen3-1.7B-q4f16_1-MLC/resolve/main/tensor-cache.json");
  });

  it("rejects relative and non-http URLs with messages that say what is needed", () => {
    const check = checkCustomModel({ ...good, modelUrl: "/models/MyQwen", modelLibUrl: "file:///tmp/x.wasm" });
    expect(check.spec).toBeUndefined();
    expect(check.problems).toEqual([
      { field: "modelUrl", message: expect.stringMatching(/relative path; WebLLM needs an absolute URL/) },
      { field: "modelLibUrl", message: expect.stringMatching(/uses file: but must be http:\/\/ or https:\/\//) },
    ]);
  });

  it("rejects a library that is not .wasm, queries, bad ids, ids of built-in models and bad windows", () => {
    const fields = (input: Parameters<typeof checkCustomModel>[0]) => checkCustomModel(input).problems.map((p) => p.field);
    expect(fields({ ...good, modelLibUrl: "https://h/lib.js" })).toEqual(["modelLibUrl"]);
    expect(fields({ ...good, modelUrl: "https://h/m?download=1" })).toEqual(["modelUrl"]);
    expect(fields({ ...good, id: "has space" })).toEqual(["id"]);
    expect(fields({ ...good, id: "" })).toEqual(["id"]);
    expect(fields({ ...good, id: "Qwen3-4B-q4f16_1-MLC" })).toEqual(["id"]);
    expect(fields({ ...good, contextWindow: 100 })).toEqual(["contextWindow"]);
    expect(fields({ ...good, contextWindow: 4096.5 })).toEqual(["contextWindow"]);
    expect(fields({ ...good, vramMB: -1 })).toEqual(["vramMB"]);
    expect(fields({ ...good, modelUrl: "not a url" })).toEqual(["modelUrl"]);
  });

  it("notes that a localhost library is never cached by WebLLM (no offline use)", () => {
    const check = checkCustomModel({ ...good, modelLibUrl: "http://localhost:8000/lib/x-webgpu.wasm" });
    expect(check.problems).toEqual([]);
    expect(check.notes.join(" ")).toMatch(/never caches a model library whose URL contains "localhost"/);
  });

  it("guesses f16 and the thinking switch from the names, and lets the user override", () => {
    const f32 = checkCustomModel({ ...good, id: "Llama-q4f32_1", modelLibUrl: "https://h/Llama-q4f32_1-webgpu.wasm" }).spec!;
    expect(f32.f16).toBe(false);
    expect(f32.supportsThinkingToggle).toBe(false);
    expect(checkCustomModel({ ...good, f16: false }).spec!.f16).toBe(false);
  });

  it("customModelSpec throws one CustomModelError listing every problem", () => {
    let caught: unknown;
    try {
      customModelSpec({ id: "", modelUrl: "models/x", modelLibUrl: "" });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(CustomModelError);
    expect((caught as CustomModelError).problems.map((p) => p.field)).toEqual(["id", "modelUrl", "modelLibUrl"]);
    expect((caught as Error).message).toMatch(/^The custom model cannot be added: /);
  });
});
