// The engine registry: every engine's descriptor is complete and DOM-free, settings hold each
// engine's defaults under its id, and what is missing before a question comes from the engine.
import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, describeEndpoint, loadSettings } from "../../src/app/settings.ts";
import { ENGINES, ENGINE_IDS, engineDefaults, isEngineId } from "../../src/engines/registry.ts";

describe("the engine registry", () => {
  it("lists each engine once, with its settings, names and words", () => {
    expect(ENGINE_IDS).toEqual(["wllama", "webllm", "openai"]);
    for (const e of ENGINES) {
      expect(e.label.length).toBeGreaterThan(5);
      expect(e.settingsButton).toMatch(/^Open Settings/);
      expect(e.throughput.prefill).toBeGreaterThan(0);
      expect(DEFAULT_SETTINGS[e.id]).toEqual(e.defaults);
    }
    expect(isEngineId("wllama")).toBe(true);
    expect(isEngineId("gpt")).toBe(false);
  });

  it("keeps stored settings of every engine and refuses an unknown backend", () => {
    const stored = { backend: "nope", wllama: { modelId: "m-1" }, openai: { model: "x" } };
    const s = loadSettings({ getItem: () => JSON.stringify(stored) });
    expect(s.backend).toBe(DEFAULT_SETTINGS.backend);
    expect(s.wllama).toEqual({ ...engineDefaults().wllama, modelId: "m-1" });
    expect(s.openai.model).toBe("x");
    expect(s.webllm).toEqual(engineDefaults().webllm);
  });

  it("says where questions go, per engine", () => {
    const s = structuredClone(DEFAULT_SETTINGS);
    s.backend = "wllama";
    s.wllama.modelId = "qwen-123";
    expect(describeEndpoint(s)).toEqual({ origin: "this browser", model: "qwen-123" });
    s.backend = "openai";
    s.openai.baseUrl = "http://10.0.0.5:8000/v1";
    s.openai.model = "q";
    expect(describeEndpoint(s)).toEqual({ origin: "http://10.0.0.5:8000", model: "q" });
  });

  it("says what is missing before a question can go", () => {
    const wllama = ENGINES.find((e) => e.id === "wllama")!;
    expect(wllama.missing({ ...wllama.defaults })).toMatch(/pick a \.gguf model file/);
    expect(wllama.missing({ ...wllama.defaults, modelId: "x" })).toBeNull();
  });
});
