// User settings: kept in localStorage, overridable from the page URL so a setup can be shared
// as a link (?backend=openai&baseUrl=...&model=...&maxIterations=...). API keys never go into links.
import { PROMPT_CHOICES, type PromptChoice } from "../core/profiles/types.ts";
import { RUN_MODE_CHOICES, type RunModeRequest } from "../core/run-mode.ts";
import { DEFAULT_CONFIG, type RlmConfig } from "../core/types.ts";
import type { CustomModelInput } from "../engines/webllm/custom-model.ts";

export type Backend = "webllm" | "openai";
export type Theme = "system" | "light" | "dark";

export interface Settings {
  backend: Backend;
  openai: {
    baseUrl: string;
    model: string;
    subModel: string;
    apiKey: string;
    /** 0 = read from the server (/v1/models), else tokens. */
    contextWindow: number;
    stream: boolean;
  };
  webllm: {
    modelId: string;
    /** "" = use the root model for sub-calls too. */
    subModelId: string;
    contextWindow: number;
    thinking: boolean;
    /** WebLLM-format models added by URL. */
    customModels: CustomModelInput[];
    /** GPU memory the user says they have (GB); 0 = let the app guess. */
    userVramGB: number;
  };
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
  };
  compare: boolean;
  theme: Theme;
}

export const DEFAULT_SETTINGS: Settings = {
  backend: "webllm",
  openai: { baseUrl: "http://localhost:8000/v1", model: "", subModel: "", apiKey: "", contextWindow: 0, stream: true },
  webllm: { modelId: "", subModelId: "", contextWindow: 4096, thinking: false, customModels: [], userVramGB: 0 },
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
  },
  compare: false,
  theme: "system",
};

const STORAGE_KEY = "browser-rlm.settings";

function merge(base: Settings, partial: Partial<Settings> | null | undefined): Settings {
  if (!partial || typeof partial !== "object") return structuredClone(base);
  return {
    ...base,
    ...partial,
    openai: { ...base.openai, ...(partial.openai ?? {}) },
    webllm: { ...base.webllm, ...(partial.webllm ?? {}) },
    run: { ...base.run, ...(partial.run ?? {}) },
  };
}

export function loadSettings(storage: Pick<Storage, "getItem"> | null = globalThis.localStorage ?? null): Settings {
  try {
    const raw = storage?.getItem(STORAGE_KEY);
    return merge(DEFAULT_SETTINGS, raw ? (JSON.parse(raw) as Partial<Settings>) : null);
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

/** URL parameter → where it lives in Settings, and how to read it. */
const URL_FIELDS: Array<[string, (s: Settings, v: string) => void, (s: Settings) => string | null]> = [
  ["backend", (s, v) => (s.backend = v === "openai" ? "openai" : "webllm"), (s) => s.backend],
  ["baseUrl", (s, v) => (s.openai.baseUrl = v), (s) => (s.backend === "openai" ? s.openai.baseUrl : null)],
  ["model", (s, v) => (s.backend === "openai" ? (s.openai.model = v) : (s.webllm.modelId = v)), (s) => (s.backend === "openai" ? s.openai.model : s.webllm.modelId) || null],
  ["subModel", (s, v) => (s.backend === "openai" ? (s.openai.subModel = v) : (s.webllm.subModelId = v)), (s) => (s.backend === "openai" ? s.openai.subModel : s.webllm.subModelId) || null],
  ["contextWindow", (s, v) => (s.backend === "openai" ? (s.openai.contextWindow = int(v, 0)) : (s.webllm.contextWindow = int(v, 4096))), (s) => String(s.backend === "openai" ? s.openai.contextWindow || "" : s.webllm.contextWindow) || null],
  ["maxIterations", (s, v) => (s.run.maxIterations = int(v, s.run.maxIterations, 1)), (s) => String(s.run.maxIterations)],
  ["maxDepth", (s, v) => (s.run.maxDepth = int(v, s.run.maxDepth, 1)), (s) => String(s.run.maxDepth)],
  ["maxTokens", (s, v) => (s.run.maxTokensPerTurn = int(v, 0)), (s) => (s.run.maxTokensPerTurn ? String(s.run.maxTokensPerTurn) : null)],
  ["temperature", (s, v) => (s.run.temperature = float(v)), (s) => (s.run.temperature === null ? null : String(s.run.temperature))],
  ["topP", (s, v) => (s.run.topP = float(v)), (s) => (s.run.topP === null ? null : String(s.run.topP))],
  ["seed", (s, v) => (s.run.seed = float(v)), (s) => (s.run.seed === null ? null : String(s.run.seed))],
  ["cellTimeout", (s, v) => (s.run.cellTimeoutS = int(v, s.run.cellTimeoutS, 1)), (s) => String(s.run.cellTimeoutS)],
  ["compare", (s, v) => (s.compare = v === "1" || v === "true"), (s) => (s.compare ? "1" : null)],
  ["prompt", (s, v) => (s.run.prompt = oneOf(v, PROMPT_CHOICES, s.run.prompt)), (s) => (s.run.prompt !== "auto" ? s.run.prompt : null)],
  ["mode", (s, v) => (s.run.mode = oneOf(v, RUN_MODE_CHOICES, s.run.mode)), (s) => (s.run.mode !== "auto" ? s.run.mode : null)],
];

function oneOf<T extends string>(v: string, choices: readonly T[], fallback: T): T {
  return (choices as readonly string[]).includes(v) ? (v as T) : fallback;
}

function int(v: string, fallback: number, min = 0): number {
  const n = Number(v);
  return Number.isInteger(n) && n >= min ? n : fallback;
}
function float(v: string): number | null {
  const n = Number(v);
  return v.trim() !== "" && Number.isFinite(n) ? n : null;
}

/** Applies ?key=value overrides from a page URL. Returns which keys were used. */
export function applyUrlParams(settings: Settings, search: string): { settings: Settings; applied: string[] } {
  const params = new URLSearchParams(search);
  const next = structuredClone(settings);
  const applied: string[] = [];
  // backend first: "model" means different things for each backend
  const order = [...URL_FIELDS].sort((a, b) => (a[0] === "backend" ? -1 : b[0] === "backend" ? 1 : 0));
  for (const [key, set] of order) {
    const value = params.get(key);
    if (value !== null) {
      set(next, value);
      applied.push(key);
    }
  }
  return { settings: next, applied };
}

/** A link that reproduces these settings (never the API key). */
export function shareLink(settings: Settings, base: string): string {
  const url = new URL(base);
  url.search = "";
  for (const [key, , get] of URL_FIELDS) {
    const value = get(settings);
    if (value !== null && value !== "") url.searchParams.set(key, value);
  }
  return url.href;
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
    ...(s.run.temperature !== null ? { temperature: s.run.temperature } : {}),
    ...(s.run.topP !== null ? { topP: s.run.topP } : {}),
    ...(s.run.seed !== null ? { seed: s.run.seed } : {}),
    prompt: s.run.prompt,
    // Compare mode sets the RLM beside a direct answer: auto must not make both direct.
    runMode: s.compare ? "rlm" : s.run.mode,
    // WebLLM's "let Qwen3 think" switch; the loop keeps thinking off otherwise.
    ...(s.backend === "webllm" && s.webllm.thinking ? { thinking: true } : {}),
  };
}
