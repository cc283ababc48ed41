// Effort presets: Quick / Thorough / Exhaustive, the main choice next to Ask, each mapping onto
// the run limits in Settings (which stay editable under "Advanced"). One table, so the page, the
// estimates and any other caller agree on what a preset means.
import { deriveBudgets } from "../core/budgets.ts";
import { chooseRunMode, type RunModeRequest } from "../core/run-mode.ts";
import { DEFAULT_OPENAI_CONTEXT_WINDOW } from "../engines/openai.ts";
import { engineDescriptor } from "../engines/registry.ts";
import { CHARS_PER_TOKEN } from "../engines/tokens.ts";
import { engineSettings, type Settings } from "./settings.ts";

export type Effort = "quick" | "thorough" | "exhaustive";
export const EFFORTS: readonly Effort[] = ["quick", "thorough", "exhaustive"];

type PresetLimits = Pick<Settings["run"], "maxIterations" | "maxSubcalls" | "maxTimeS" | "maxDepth">;

export interface Preset extends PresetLimits {
  label: string;
  /** What the preset trades, in a few words. */
  blurb: string;
  /** Share of the document's chunks a run at this effort typically sends to sub-calls. */
  coverage: number;
  /** Root turns a run at this effort typically takes (before its limit). */
  typicalTurns: number;
}

/** Thorough is the app's defaults (DEFAULT_CONFIG), so existing settings read as Thorough. */
export const PRESETS: Record<Effort, Preset> = {
  quick: {
    label: "Quick",
    blurb: "a few turns, samples the document",
    maxIterations: 6,
    maxSubcalls: 20,
    maxTimeS: 180,
    maxDepth: 1,
    coverage: 0.25,
    typicalTurns: 3,
  },
  thorough: {
    label: "Thorough",
    blurb: "reads what the question needs",
    maxIterations: 20,
    maxSubcalls: 200,
    maxTimeS: 900,
    maxDepth: 1,
    coverage: 1,
    typicalTurns: 6,
  },
  exhaustive: {
    label: "Exhaustive",
    blurb: "reads everything, checks twice",
    maxIterations: 40,
    maxSubcalls: 1000,
    maxTimeS: 3600,
    maxDepth: 2,
    coverage: 2,
    typicalTurns: 12,
  },
};

/** The preset these run settings are, or "custom" when Advanced changed a limit. */
export function effortOf(run: PresetLimits): Effort | "custom" {
  return (
    EFFORTS.find((e) => (["maxIterations", "maxSubcalls", "maxTimeS", "maxDepth"] as const).every((k) => PRESETS[e][k] === run[k])) ??
    "custom"
  );
}

/** Settings with a preset's limits (everything else, e.g. temperature or seed, kept). */
export function withEffort(settings: Settings, effort: Effort): Settings {
  const { maxIterations, maxSubcalls, maxTimeS, maxDepth } = PRESETS[effort];
  return { ...settings, run: { ...settings.run, maxIterations, maxSubcalls, maxTimeS, maxDepth } };
}

export interface Estimate {
  /** "direct": the document fits the window and auto mode answers in one call. */
  mode: "direct" | "rlm";
  tokens: number;
  seconds: number;
  subcalls: number;
  turns: number;
}

export interface EstimateInput {
  docChars: number;
  rootWindow: number;
  backend: Settings["backend"];
  mode: RunModeRequest;
}

/** Time and tokens a question at this effort will probably take; an estimate, not a promise. */
export function estimateEffort(effort: Effort, input: EstimateInput): Estimate {
  const p = PRESETS[effort];
  // Each engine states its assumed speed in its descriptor (src/engines/*/descriptor.ts).
  const speed = engineDescriptor(input.backend).throughput;
  const b = deriveBudgets({ rootWindow: input.rootWindow, subWindow: input.rootWindow });
  const seconds = (prompt: number, out: number) => prompt / speed.prefill + out / speed.decode;
  if (chooseRunMode(input.docChars, 80, input.rootWindow, input.mode).mode === "direct") {
    const prompt = Math.ceil(input.docChars / CHARS_PER_TOKEN) + 200;
    const out = Math.round(b.maxTokensPerTurn / 2);
    return { mode: "direct", tokens: prompt + out, seconds: Math.min(p.maxTimeS, seconds(prompt, out)), subcalls: 0, turns: 1 };
  }
  const chunks = Math.max(1, Math.ceil(input.docChars / b.chunkChars));
  const subcalls = Math.min(p.maxSubcalls, Math.ceil(chunks * p.coverage));
  const turns = Math.min(p.maxIterations, p.typicalTurns);
  // Root turns: the conversation grows to about half the history budget on average.
  const rootPrompt = turns * Math.round(b.historyTokens / 2);
  const rootOut = turns * Math.round(b.maxTokensPerTurn / 2);
  const subPrompt = subcalls * Math.ceil(b.subPromptChars / CHARS_PER_TOKEN);
  const subOut = subcalls * Math.round(b.subMaxTokens / 2);
  return {
    mode: "rlm",
    tokens: rootPrompt + rootOut + subPrompt + subOut,
    seconds: Math.min(p.maxTimeS, seconds(rootPrompt + subPrompt, rootOut + subOut)),
    subcalls,
    turns,
  };
}

/** Each preset's estimate in words for these settings and documents, or null with no document. */
export function estimatesFor(settings: Settings, docChars: number, knownWindow: number | undefined): Record<Effort, string> | null {
  if (!docChars) return null;
  // The window the settings ask for; else the one the engine reported (an endpoint's), else a guess.
  const rootWindow =
    engineDescriptor(settings.backend).contextWindow(engineSettings(settings)) || knownWindow || DEFAULT_OPENAI_CONTEXT_WINDOW;
  const input: EstimateInput = { docChars, rootWindow, backend: settings.backend, mode: settings.compare ? "rlm" : settings.run.mode };
  return Object.fromEntries(EFFORTS.map((e) => [e, describeEstimate(estimateEffort(e, input))])) as Record<Effort, string>;
}

/** "≈ 2 min · ≈ 48K tokens", for the effort picker. */
export function describeEstimate(e: Estimate): string {
  const time = e.seconds < 60 ? `${Math.max(5, Math.round(e.seconds / 5) * 5)} s` : `${Math.round(e.seconds / 60)} min`;
  const tokens =
    e.tokens >= 1_000_000
      ? `${(e.tokens / 1_000_000).toFixed(1)}M`
      : e.tokens >= 1000
        ? `${Math.round(e.tokens / 1000)}K`
        : String(e.tokens);
  return `≈ ${time} · ≈ ${tokens} tokens${e.mode === "direct" ? " · one direct call" : ` · ${e.subcalls} sub-calls`}`;
}
