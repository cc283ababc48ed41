// User settings, kept in localStorage. A setup can be shared as a link; what a link proposes is
// read in link-settings.ts and applied only when the person confirms. An API key belongs to the
// origin of the endpoint it was entered for and is only ever handed to that origin.
import { DEFAULT_FALLBACK_POLICY, FALLBACK_MODES, type FallbackMode, type FallbackPolicy } from "../core/fallback-cost.ts";
import type { PromptChoice } from "../core/profiles/types.ts";
import type { RunModeRequest } from "../core/run-mode.ts";
import { DEFAULT_CONFIG, type RlmConfig } from "../core/types.ts";
import { apiKeyFor, originOf } from "../engines/openai/descriptor.ts";
import { ENGINES, engineDefaults, engineDescriptor, type EngineId, type EngineSettingsMap } from "../engines/registry.ts";
import { samplingOf } from "../core/sampling.ts";

export { apiKeyFor, originOf };
export type Backend = EngineId;
export type Theme = "system" | "light" | "dark";

/** Which engine answers, each engine's own settings under its id (src/engines/registry.ts), and the run's. */
export type Settings = EngineSettingsMap & {
  backend: Backend;
  run: {
    maxIterations: number;
    maxDepth: number;
    /** 0 = model default */
    maxTokensPerTurn: number;
    temperature: number | null;
    topP: number | null;
    seed: number | null;
    cellTimeoutS: number;
    maxSubcalls: number;
    maxTimeS: number;
    /** Prompt profile; "auto" picks one from the model's name and window. */
    prompt: PromptChoice;
    /** "auto": one direct call when the document fits the window, else the RLM. */
    mode: RunModeRequest;
    /**
     * When the model cannot drive a run, may the harness read the document itself with the
     * helper model: "ask" above the two limits below (issue 28), "always", or "never".
     */
    fallback: FallbackMode;
    fallbackMaxCalls: number;
    fallbackMaxTokens: number;
  };
  compare: boolean;
  theme: Theme;
};

export const DEFAULT_SETTINGS: Settings = {
  // WebGPU when the browser has it; the page switches to llama.cpp on the CPU when it does not.
  backend: "webllm",
  ...engineDefaults(),
  run: {
    maxIterations: DEFAULT_CONFIG.maxIterations,
    maxDepth: DEFAULT_CONFIG.maxDepth,
    maxTokensPerTurn: 0,
    temperature: null,
    topP: null,
    seed: null,
    cellTimeoutS: DEFAULT_CONFIG.cellTimeoutMs / 1000,
    maxSubcalls: DEFAULT_CONFIG.maxSubcalls,
    maxTimeS: DEFAULT_CONFIG.maxWallTimeMs / 1000,
    prompt: "auto",
    mode: "auto",
    fallback: DEFAULT_FALLBACK_POLICY.mode,
    fallbackMaxCalls: DEFAULT_FALLBACK_POLICY.maxCalls,
    fallbackMaxTokens: DEFAULT_FALLBACK_POLICY.maxTokens,
  },
  compare: false,
  theme: "system",
};

const STORAGE_KEY = "browser-rlm.settings";

function merge(base: Settings, partial: Partial<Settings> | null | undefined): Settings {
  if (!partial || typeof partial !== "object") return structuredClone(base);
  const merged = { ...base, ...partial, run: { ...base.run, ...(partial.run ?? {}) } } as Settings;
  for (const e of ENGINES) {
    (merged as unknown as Record<string, object>)[e.id] = {
      ...base[e.id],
      ...((partial as Record<string, object | undefined>)[e.id] ?? {}),
    };
  }
  if (!ENGINES.some((e) => e.id === merged.backend)) merged.backend = base.backend;
  return merged;
}

/** Where questions go with these settings, as the page shows it beside each answer. */
export function describeEndpoint(s: Settings): { origin: string; model: string } {
  const engine = engineDescriptor(s.backend);
  const own = engineSettings(s);
  return { origin: engine.destination(own), model: engine.modelName(own) };
}

/** The chosen engine's own settings. */
export function engineSettings(s: Settings, id: Backend = s.backend): object {
  return (s as unknown as Record<string, object>)[id]!;
}

/**
 * Settings saved before keys were bound to an origin: the key belongs to the endpoint it was
 * saved with.
 */
function migrate(settings: Settings): Settings {
  if (settings.openai.apiKey && !settings.openai.apiKeyOrigin) settings.openai.apiKeyOrigin = originOf(settings.openai.baseUrl);
  return settings;
}

export function loadSettings(storage: Pick<Storage, "getItem"> | null = globalThis.localStorage ?? null): Settings {
  try {
    const raw = storage?.getItem(STORAGE_KEY);
    return migrate(merge(DEFAULT_SETTINGS, raw ? (JSON.parse(raw) as Partial<Settings>) : null));
  } catch {
    return structuredClone(DEFAULT_SETTINGS);
  }
}

export function saveSettings(settings: Settings, storage: Pick<Storage, "setItem"> | null = globalThis.localStorage ?? null): void {
  try {
    storage?.setItem(STORAGE_KEY, JSON.stringify(settings));
  } catch {
    // Storage may be blocked (private mode); settings then last for this tab only.
  }
}

export function toRlmConfig(s: Settings): RlmConfig {
  return {
    ...DEFAULT_CONFIG,
    maxIterations: s.run.maxIterations,
    maxDepth: s.run.maxDepth,
    maxSubcalls: s.run.maxSubcalls,
    maxWallTimeMs: s.run.maxTimeS * 1000,
    cellTimeoutMs: s.run.cellTimeoutS * 1000,
    ...(s.run.maxTokensPerTurn ? { maxTokensPerTurn: s.run.maxTokensPerTurn } : {}),
    sampling: samplingOf(s.run),
    prompt: s.run.prompt,
    // Compare mode sets the RLM beside a direct answer: auto must not make both direct.
    runMode: s.compare ? "rlm" : s.run.mode,
    // An engine's "let Qwen3 think" switch; the loop keeps thinking off otherwise.
    ...(engineDescriptor(s.backend).thinking?.(engineSettings(s)) ? { thinking: true } : {}),
    fallback: fallbackPolicy(s.run),
  };
}

/** The fallback's policy from the settings; a limit left empty or invalid in the form is the default. */
export function fallbackPolicy(run: Pick<Settings["run"], "fallback" | "fallbackMaxCalls" | "fallbackMaxTokens">): FallbackPolicy {
  const limit = (n: number, fallback: number) => (Number.isFinite(n) && n >= 0 ? Math.floor(n) : fallback);
  return {
    mode: FALLBACK_MODES.includes(run.fallback) ? run.fallback : DEFAULT_FALLBACK_POLICY.mode,
    maxCalls: limit(run.fallbackMaxCalls, DEFAULT_FALLBACK_POLICY.maxCalls),
    maxTokens: limit(run.fallbackMaxTokens, DEFAULT_FALLBACK_POLICY.maxTokens),
  };
}
