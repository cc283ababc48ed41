// Which prompt profile a model gets when the setting is "auto": from its name, the way people
// name models (WebLLM "Qwen2.5-1.5B-Instruct-q4f16_1-MLC", Hugging Face "Qwen/Qwen3-8B",
// Ollama "qwen2.5:0.5b", MoE "Qwen3-30B-A3B").
import type { PromptChoice, PromptProfileName } from "./types.ts";

export interface ProfileChoice {
  profile: PromptProfileName;
  /** Why, in words for a settings panel or a --verbose line. */
  reason: string;
}

/** Roots at or below this size get the guided profile (small-models.md: the ≤ 4B tier). */
export const GUIDED_MAX_B = 4;

/**
 * Parameters in billions from a model name, or null. "30B-A3B" is 30 (the total; "A3B" is the
 * active share), "360M" is 0.36. Version numbers ("Qwen2.5", "Llama-3.2") are not sizes.
 */
export function modelSizeB(name: string): number | null {
  let best: number | null = null;
  // Not followed by a letter or digit: "7b750a" in a file's hash is no size.
  for (const m of name.matchAll(/(^|[^A-Za-z0-9.])([aA])?(\d+(?:\.\d+)?)\s*([bBmM])(?![A-Za-z0-9])/g)) {
    if (m[2]) continue; // A3B: active parameters of a mixture of experts
    const value = Number(m[3]) / (m[4]!.toLowerCase() === "m" ? 1000 : 1);
    best = Math.max(best ?? 0, value);
  }
  return best;
}

/** An RLM-trained model: "rlm" as its own word in the name (RLM-Qwen3-8B, rlm-qwen3-30b-a3b). */
function isRlmTrained(name: string): boolean {
  return /(^|[^a-z])rlm([^a-z]|$)/i.test(name);
}

/**
 * The profile for `modelName`. An explicit choice wins; "auto" picks canonical for RLM-trained
 * models, guided for ≤ 4B, standard above. With no size in the name, a window of 4K tokens or
 * less (WebLLM's default) suggests a small local model, so guided; otherwise standard.
 */
export function chooseProfile(modelName: string, options: { choice?: PromptChoice; rootWindow?: number } = {}): ProfileChoice {
  const choice = options.choice ?? "auto";
  if (choice !== "auto") return { profile: choice, reason: `chosen in settings (${choice})` };
  if (isRlmTrained(modelName)) return { profile: "canonical", reason: `${modelName} is trained on the canonical RLM harness` };
  const size = modelSizeB(modelName);
  if (size !== null) {
    return size <= GUIDED_MAX_B
      ? { profile: "guided", reason: `${modelName} has ${size}B parameters (≤ ${GUIDED_MAX_B}B)` }
      : { profile: "standard", reason: `${modelName} has ${size}B parameters` };
  }
  if (options.rootWindow !== undefined && options.rootWindow <= 4096) {
    return { profile: "guided", reason: `size unknown; a ${options.rootWindow}-token window suggests a small local model` };
  }
  return { profile: "standard", reason: "size unknown" };
}
