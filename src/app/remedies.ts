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
  if (/No local model|WebGPU|GPU memory/i.test(message)) {
    // Without WebGPU no local model can help: the endpoint tab is the only fix.
    return gpuAvailable === false ? { label: "Set up an endpoint", tab: "openai" } : { label: "Open Settings (local model)", tab: "webllm" };
  }
  if (/OpenAI-compatible endpoint|model server|API key|base URL/i.test(message)) return { label: "Open Settings (endpoint)", tab: "openai" };
  if (/Open Settings|in Settings/i.test(message)) return { label: "Open Settings", tab: current };
  return null;
}
