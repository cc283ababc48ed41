// WebLLM on the GPU (WebGPU): what the settings hold and how the app names it. The engine runs in
// workers/browser/model.worker.ts; the page's side is page.ts beside this file.
import { defineEngine } from "../descriptor.ts";
import { findCatalogEntry } from "./catalog.ts";
import type { CustomModelInput } from "./custom-model.ts";

export interface WebLLMSettings {
  modelId: string;
  /** "" = use the root model for sub-calls too. */
  subModelId: string;
  contextWindow: number;
  thinking: boolean;
  /** WebLLM-format models added by URL. */
  customModels: CustomModelInput[];
  /** GPU memory the user says they have (GB); 0 = let the app guess. */
  userVramGB: number;
}

const known = (s: WebLLMSettings, id: string) => !!findCatalogEntry(id) || s.customModels.some((m) => m.id === id);

export const WEBLLM = defineEngine({
  id: "webllm",
  label: "In this browser, on the GPU (WebLLM, WebGPU)",
  local: true,
  defaults: {
    modelId: "",
    subModelId: "",
    contextWindow: 4096,
    thinking: false,
    customModels: [],
    userVramGB: 0,
  } satisfies WebLLMSettings as WebLLMSettings,
  modelName: (s) => s.modelId,
  destination: () => "this browser",
  contextWindow: (s) => s.contextWindow,
  // Whether a model can run (WebGPU) and which one is recommended is known only in the page.
  missing: () => null,
  owns: /No local model|WebGPU|GPU memory/i,
  settingsButton: "Open Settings (local model)",
  words: { ready: "loaded", failed: "not available" },
  // A 1.5–3B model on an integrated GPU (a stated assumption).
  throughput: { prefill: 250, decode: 15 },
  link: {
    model: {
      read: (s) => s.modelId || null,
      unset: "the one recommended for this GPU",
      check: (v, s) => (known(s, v) ? null : "is not a model in this app's catalog"),
      write: (s, v) => (s.modelId = v),
    },
    subModel: {
      read: (s) => s.subModelId || null,
      unset: "the same model",
      check: (v, s) => (known(s, v) ? null : "is not a model in this app's catalog"),
      write: (s, v) => (s.subModelId = v),
    },
    contextWindow: { read: (s) => String(s.contextWindow), write: (s, v) => (s.contextWindow = Number(v)) },
  },
  thinking: (s) => s.thinking,
});
