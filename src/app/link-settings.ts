// Settings that arrive in a page link (?backend=openai&baseUrl=...&model=...) are a proposal,
// never a change. Opening such a link used to switch the endpoint at once and send the saved API
// key and the session's questions to whatever host the link named; a prompt-injected answer
// could carry that link. Now the page shows what would change, applies it only when the person
// confirms, never lets a link bring a saved key to another origin (see apiKeyFor), and takes
// the parameters out of the address bar either way, so a reload never undoes what was saved.
import { PROMPT_CHOICES } from "../core/profiles/types.ts";
import { RUN_MODE_CHOICES } from "../core/run-mode.ts";
import type { LinkField as EngineLinkField } from "../engines/descriptor.ts";
import { ENGINE_IDS, engineDescriptor, isEngineId } from "../engines/registry.ts";
import { apiKeyFor, describeEndpoint, engineSettings, originOf, type Settings } from "./settings.ts";

export interface LinkChange {
  key: string;
  label: string;
  from: string;
  to: string;
}

export interface LinkRefusal {
  key: string;
  value: string;
  why: string;
}

export interface LinkProposal {
  /** The settings as they would be once applied. */
  next: Settings;
  changes: LinkChange[];
  /** Values that were not taken, with the reason. */
  refused: LinkRefusal[];
  /** Where questions go now and would go after applying (origin, or "this browser"). */
  endpoint: { from: string; to: string; changed: boolean };
  /** A key is saved, and it would not be sent to the proposed endpoint. */
  keyWithheld: boolean;
}

type Parsed = { apply: (s: Settings) => void } | { why: string };

interface LinkField {
  key: string;
  label: string;
  /** The value as a link carries it; null when unset. */
  read(s: Settings): string | null;
  /**
   * The value as a person reads it in the dialog ("This browser (WebGPU)", not "webllm"), and
   * what an unset value means ("asked from the server", "same as the model"): never "(not set)"
   * for a value the app fills in itself. Default: the value as the link carries it.
   */
  show?(value: string | null, s: Settings): string;
  /** Whether a share link includes it (default: whenever it is set). */
  shared?: (s: Settings) => boolean;
  parse(raw: string, s: Settings): Parsed;
}

const MAX_TEXT = 200;

function wholeNumber(min: number, max: number, set: (s: Settings, n: number) => void): LinkField["parse"] {
  return (raw) => {
    const n = Number(raw);
    if (raw.trim() === "" || !Number.isInteger(n) || n < min || n > max) {
      return { why: `must be a whole number from ${min.toLocaleString("en-US")} to ${max.toLocaleString("en-US")}` };
    }
    return { apply: (s) => set(s, n) };
  };
}

function decimal(min: number, max: number, set: (s: Settings, n: number) => void): LinkField["parse"] {
  return (raw) => {
    const n = Number(raw);
    if (raw.trim() === "" || !Number.isFinite(n) || n < min || n > max) return { why: `must be a number from ${min} to ${max}` };
    return { apply: (s) => set(s, n) };
  };
}

function modelName(raw: string): { name: string } | { why: string } {
  const name = raw.trim();
  // Control and format characters would let a name look like something else in the dialog.
  if (!name || name.length > MAX_TEXT || /[\p{Cc}\p{Cf}]/u.test(name))
    return { why: `must be a model name of 1 to ${MAX_TEXT} visible characters` };
  return { name };
}

/** The chosen engine's share-link field of this kind, if it has one. */
function engineField(s: Settings, kind: "model" | "subModel" | "contextWindow"): EngineLinkField<object> | undefined {
  return engineDescriptor(s.backend).link?.[kind];
}

/** A model name field that each engine reads, checks and writes in its own settings. */
function engineModelField(key: "model" | "subModel", label: string): LinkField {
  return {
    key,
    label,
    read: (s) => engineField(s, key)?.read(engineSettings(s)) ?? null,
    // What an unset value means, in the engine's words ("the one recommended for this GPU").
    show: (v, s) => v ?? engineField(s, key)?.unset ?? (key === "subModel" ? "the same model" : "none yet"),
    parse: (raw, s) => {
      const field = engineField(s, key);
      if (!field) return { why: `cannot be set by a link for ${engineDescriptor(s.backend).label}` };
      const m = modelName(raw);
      if ("why" in m) return m;
      const refused = field.check?.(m.name, engineSettings(s));
      if (refused) return { why: refused };
      return { apply: (t) => engineField(t, key)?.write(engineSettings(t), m.name) };
    },
  };
}

const FIELDS: LinkField[] = [
  {
    key: "backend",
    label: "Model source",
    read: (s) => s.backend,
    // The engine's own name for itself ("In this browser, on the CPU (llama.cpp, a GGUF file)"), not its id.
    show: (v) => (v !== null && isEngineId(v) ? engineDescriptor(v).label : String(v)),
    parse: (raw) =>
      isEngineId(raw) ? { apply: (s) => (s.backend = raw) } : { why: `must be one of ${ENGINE_IDS.map((id) => `"${id}"`).join(", ")}` },
  },
  {
    key: "baseUrl",
    label: "Endpoint (base URL)",
    // Shown even while the backend is local: a link must not change it unseen.
    read: (s) => s.openai.baseUrl,
    shared: (s) => s.backend === "openai",
    parse: (raw) => {
      if (!originOf(raw)) return { why: "is not an http:// or https:// address" };
      const url = new URL(raw.trim());
      if (url.username || url.password) return { why: "carries a user name or password" };
      return { apply: (s) => (s.openai.baseUrl = url.href.replace(/\/$/, "")) };
    },
  },
  engineModelField("model", "Model"),
  engineModelField("subModel", "Sub-call model"),
  {
    key: "contextWindow",
    label: "Context window (tokens)",
    read: (s) => engineField(s, "contextWindow")?.read(engineSettings(s)) ?? null,
    show: (v, s) => (v === null ? (engineField(s, "contextWindow")?.unset ?? "the model's own") : count(v)),
    parse: (raw, s) => {
      if (!engineField(s, "contextWindow")) return { why: `cannot be set by a link for ${engineDescriptor(s.backend).label}` };
      return wholeNumber(0, 10_000_000, (t, n) => engineField(t, "contextWindow")?.write(engineSettings(t), String(n)))(raw, s);
    },
  },
  {
    key: "maxIterations",
    label: "Max iterations",
    read: (s) => String(s.run.maxIterations),
    show: (v) => count(v),
    parse: wholeNumber(1, 200, (s, n) => (s.run.maxIterations = n)),
  },
  {
    key: "maxDepth",
    label: "Max depth",
    read: (s) => String(s.run.maxDepth),
    show: (v) => (v === "1" ? "1 (no child RLMs)" : String(v)),
    parse: wholeNumber(1, 3, (s, n) => (s.run.maxDepth = n)),
  },
  {
    key: "maxTokens",
    label: "Max tokens per turn",
    read: (s) => (s.run.maxTokensPerTurn ? String(s.run.maxTokensPerTurn) : null),
    show: (v) => (v === null ? "from the window" : count(v)),
    parse: wholeNumber(0, 1_000_000, (s, n) => (s.run.maxTokensPerTurn = n)),
  },
  {
    key: "temperature",
    label: "Temperature",
    read: (s) => (s.run.temperature === null ? null : String(s.run.temperature)),
    show: (v) => v ?? "the model's default",
    parse: decimal(0, 2, (s, n) => (s.run.temperature = n)),
  },
  {
    key: "topP",
    label: "Top-p",
    read: (s) => (s.run.topP === null ? null : String(s.run.topP)),
    show: (v) => v ?? "the model's default",
    parse: decimal(0, 1, (s, n) => (s.run.topP = n)),
  },
  {
    key: "seed",
    label: "Seed",
    read: (s) => (s.run.seed === null ? null : String(s.run.seed)),
    show: (v) => v ?? "random",
    parse: wholeNumber(-(2 ** 31), 2 ** 31 - 1, (s, n) => (s.run.seed = n)),
  },
  {
    key: "cellTimeout",
    label: "Cell time limit",
    read: (s) => String(s.run.cellTimeoutS),
    show: (v) => `${count(v)} s`,
    parse: wholeNumber(1, 3600, (s, n) => (s.run.cellTimeoutS = n)),
  },
  {
    key: "compare",
    label: "Also answer directly",
    read: (s) => (s.compare ? "1" : null),
    show: (v) => (v ? "yes" : "no"),
    parse: (raw) => {
      if (raw === "1" || raw === "true") return { apply: (s) => (s.compare = true) };
      if (raw === "0" || raw === "false") return { apply: (s) => (s.compare = false) };
      return { why: 'must be "1" or "0"' };
    },
  },
  {
    key: "prompt",
    label: "Prompt profile",
    read: (s) => s.run.prompt,
    // As the Settings dialog names them.
    show: (v) =>
      ({ auto: "Auto (from the model)", guided: "Guided (≤ 4B models)", standard: "Standard", canonical: "Canonical (RLM-trained)" })[
        v ?? "auto"
      ] ?? String(v),
    shared: (s) => s.run.prompt !== "auto",
    parse: oneOf(PROMPT_CHOICES, (s, v) => (s.run.prompt = v)),
  },
  {
    key: "mode",
    label: "Method",
    read: (s) => s.run.mode,
    show: (v) => ({ auto: "Auto (direct if it fits)", rlm: "Always RLM", direct: "Always direct" })[v ?? "auto"] ?? String(v),
    shared: (s) => s.run.mode !== "auto",
    parse: oneOf(RUN_MODE_CHOICES, (s, v) => (s.run.mode = v)),
  },
];

function oneOf<T extends string>(choices: readonly T[], set: (s: Settings, v: T) => void): LinkField["parse"] {
  return (raw) =>
    (choices as readonly string[]).includes(raw) ? { apply: (s) => set(s, raw as T) } : { why: `must be one of ${choices.join(", ")}` };
}

/** Secrets a link might try to carry; refused by name, never read. */
const SECRET_PARAMS = ["apiKey", "api_key", "key", "token"];

/** Every parameter this module reads: what is taken out of the address bar. */
export const LINK_PARAMS: readonly string[] = [...FIELDS.map((f) => f.key), ...SECRET_PARAMS];

function count(v: string | null): string {
  return v === null ? "none" : Number(v).toLocaleString("en-US");
}

/** How a setting reads in the dialog. */
function shown(field: LinkField, s: Settings): string {
  const value = field.read(s);
  return field.show ? field.show(value, s) : (value ?? "none");
}

/**
 * What a page link proposes to change in `current`, or null when it carries no settings.
 * `next` is computed but nothing is applied.
 */
export function proposeFromLink(current: Settings, search: string): LinkProposal | null {
  const params = new URLSearchParams(search);
  if (!LINK_PARAMS.some((key) => params.has(key))) return null;
  const next = structuredClone(current);
  const refused: LinkRefusal[] = [];
  for (const key of SECRET_PARAMS) {
    if (params.has(key)) refused.push({ key, value: "(hidden)", why: "API keys are never taken from links; enter yours in Settings" });
  }
  // The backend first: "model" means a different setting for each backend.
  for (const field of FIELDS) {
    const raw = params.get(field.key);
    if (raw === null) continue;
    const parsed = field.parse(raw, next);
    if ("why" in parsed) refused.push({ key: field.key, value: raw.slice(0, MAX_TEXT), why: parsed.why });
    else parsed.apply(next);
  }
  // What changed is what the link carries, compared as carried; it is shown in words.
  const changes = FIELDS.filter((f) => f.read(current) !== f.read(next) || shown(f, current) !== shown(f, next)).map((f) => ({
    key: f.key,
    label: f.label,
    from: shown(f, current),
    to: shown(f, next),
  }));
  const from = describeEndpoint(current).origin;
  const to = describeEndpoint(next).origin;
  const keyWithheld = next.backend === "openai" && !!current.openai.apiKey && !apiKeyFor(next.openai);
  return { next, changes, refused, endpoint: { from, to, changed: from !== to }, keyWithheld };
}

/** The page address without the parameters a settings link carries (others, like ?view=, stay). */
export function withoutLinkParams(href: string): string {
  const url = new URL(href);
  for (const key of LINK_PARAMS) url.searchParams.delete(key);
  return url.href;
}

/** A link that proposes these settings to whoever opens it (never the API key). */
export function shareLink(settings: Settings, base: string): string {
  const url = new URL(base);
  url.search = "";
  for (const field of FIELDS) {
    const value = field.read(settings);
    if (value !== null && value !== "" && (field.shared?.(settings) ?? true)) url.searchParams.set(field.key, value);
  }
  return url.href;
}
