// The button that fixes a failed question. A failure whose message says "Open Settings" must
// offer a real Settings button, on the tab that fixes it; plain text was a dead end (issue 15).
import type { Backend } from "./settings.ts";

export interface Remedy {
  label: string;
  /** The Settings tab to open. */
  tab: Backend;
}

/** What to offer under a failed exchange, from its message; null when nothing in Settings helps. */
export function remedyFor(message: string | undefined, current: Backend, gpuAvailable: boolean | null): Remedy | null {
  if (!message) return null;
  if (/model file|\.gguf|GGUF|llama\.cpp/i.test(message)) return { label: "Open Settings (model file)", tab: "wllama" };
  if (/No local model|WebGPU|GPU memory/i.test(message)) {
    // Without WebGPU no local model can help: the endpoint tab is the only fix.
    return gpuAvailable === false
      ? { label: "Choose a model file (CPU)", tab: "wllama" }
      : { label: "Open Settings (local model)", tab: "webllm" };
  }
  if (/OpenAI-compatible endpoint|model server|API key|base URL/i.test(message))
    return { label: "Open Settings (endpoint)", tab: "openai" };
  if (/Open Settings|in Settings/i.test(message)) return { label: "Open Settings", tab: current };
  return null;
}

/** Why a question cannot go anywhere yet, with the button that fixes it. */
export interface MissingModel extends Remedy {
  message: string;
}

/**
 * The model step of the start, checked before a question is taken: with no model to send it to,
 * a question is held (kept in the box, with the fix) rather than run into a "Failed" card.
 * `gpuAvailable` null: not known yet (the check is still running), so nothing is held for it.
 */
export function missingModel(
  settings: { backend: Backend; openai: { baseUrl: string; model: string }; webllm: { modelId: string }; wllama: { modelId: string } },
  gpuAvailable: boolean | null,
  recommendedId: string | null,
): MissingModel | null {
  if (settings.backend === "openai") {
    if (!settings.openai.baseUrl.trim() || !settings.openai.model.trim()) {
      return {
        message: "Choose a model first: the endpoint needs a base URL and a model.",
        label: "Open Settings (endpoint)",
        tab: "openai",
      };
    }
    return null;
  }
  if (settings.backend === "wllama") {
    if (!settings.wllama.modelId) {
      return {
        message: "Choose a model first: pick a .gguf model file in Settings, or drop one on the page.",
        label: "Open Settings (model file)",
        tab: "wllama",
      };
    }
    return null;
  }
  if (gpuAvailable === false) {
    return {
      message:
        "Choose a model first: this browser has no WebGPU, so WebLLM cannot run here. Choose a GGUF model file to run on the CPU, or connect to a model server.",
      label: "Choose a model file (CPU)",
      tab: "wllama",
    };
  }
  if (gpuAvailable === true && !settings.webllm.modelId && !recommendedId) {
    return { message: "Choose a model first: no local model is chosen.", label: "Open Settings (local model)", tab: "webllm" };
  }
  return null;
}
