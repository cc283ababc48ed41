// An OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp's server, LM Studio, a hosted API): what
// the settings hold and how the app names it. The engine itself is ../openai.ts (the CLI uses it
// too); the page's side is page.ts beside this file.
import { defineEngine } from "../descriptor.ts";

export interface OpenAISettings {
  baseUrl: string;
  model: string;
  subModel: string;
  apiKey: string;
  /**
   * The origin (scheme, host, port) the key was entered for. The key is sent there and
   * nowhere else: a base URL changed by hand or by a link never takes the key along.
   */
  apiKeyOrigin: string;
  /** 0 = read from the server (/v1/models), else tokens. */
  contextWindow: number;
  stream: boolean;
}

/** The origin of an http(s) URL, or "" when it is not one. */
export function originOf(url: string): string {
  try {
    const parsed = new URL(url.trim());
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.origin : "";
  } catch {
    return "";
  }
}

/** The API key to send to this endpoint: the saved key only when it belongs to its origin. */
export function apiKeyFor(openai: OpenAISettings): string {
  const origin = originOf(openai.baseUrl);
  return openai.apiKey && origin && openai.apiKeyOrigin === origin ? openai.apiKey : "";
}

export const OPENAI = defineEngine({
  id: "openai",
  label: "OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp…)",
  local: false,
  defaults: {
    baseUrl: "http://localhost:8000/v1",
    model: "",
    subModel: "",
    apiKey: "",
    apiKeyOrigin: "",
    contextWindow: 0,
    stream: true,
  } satisfies OpenAISettings as OpenAISettings,
  modelName: (s) => s.model,
  destination: (s) => originOf(s.baseUrl) || s.baseUrl,
  contextWindow: (s) => s.contextWindow,
  missing: (s) => (!s.baseUrl.trim() || !s.model.trim() ? "Choose a model first: the endpoint needs a base URL and a model." : null),
  // A saved endpoint without a model only fails later, on the first question.
  refuseSave: (s) =>
    s.model.trim()
      ? null
      : "Choose a model for this endpoint: press Test connection to list the server's models, or type the model's name.",
  owns: /OpenAI-compatible endpoint|model server|API key|base URL/i,
  settingsButton: "Open Settings (endpoint)",
  words: { ready: "connected", failed: "not available" },
  // A 7B-class model on a vLLM/Ollama server with a consumer GPU (a stated assumption).
  throughput: { prefill: 1500, decode: 40 },
  link: {
    model: { read: (s) => s.model || null, unset: "none yet", write: (s, v) => (s.model = v) },
    subModel: { read: (s) => s.subModel || null, unset: "the same model", write: (s, v) => (s.subModel = v) },
    contextWindow: {
      read: (s) => (s.contextWindow ? String(s.contextWindow) : null),
      // Unset: the page asks the server (its /models list says the window).
      unset: "asked from the server",
      write: (s, v) => (s.contextWindow = Number(v)),
    },
  },
});
