// llama.cpp in the page (wllama, CPU): what the settings hold and how the app names it. The engine
// runs in workers/browser/wllama.worker.ts; the page's side is page.ts beside this file.
import { defineEngine } from "../descriptor.ts";
import { WLLAMA_DEFAULTS, type WllamaSettings } from "./settings.ts";

export const WLLAMA = defineEngine({
  id: "wllama",
  label: "In this browser, on the CPU (llama.cpp, a GGUF file)",
  local: true,
  defaults: WLLAMA_DEFAULTS as WllamaSettings,
  modelName: (s) => s.modelId,
  destination: () => "this browser",
  contextWindow: (s) => s.contextWindow || 8192,
  missing: (s) => (s.modelId ? null : "Choose a model first: pick a .gguf model file in Settings, or drop one on the page."),
  owns: /model file|\.gguf|GGUF|llama\.cpp/i,
  settingsButton: "Open Settings (model file)",
  words: { ready: "loaded", failed: "not available", kept: "kept, not loaded" },
  // Measured: a Qwen2.5-0.5B-shaped Q8_0 model at 1 thread on a busy 2-vCPU server
  // (bench/RESULTS.md, "llama.cpp in the page"); an idle laptop is faster, so these overestimate time.
  throughput: { prefill: 8, decode: 5 },
  link: {
    // A link carries no files: only the window can be proposed.
    contextWindow: {
      read: (s) => (s.contextWindow ? String(s.contextWindow) : null),
      unset: "the model file's own, as far as memory allows",
      write: (s, v) => (s.contextWindow = Number(v)),
    },
  },
});
