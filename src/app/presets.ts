// Effort presets: Quick / Thorough / Exhaustive, the main choice next to Ask, each mapping onto
// the run limits in Settings (which stay editable under "Advanced"). One table, so the page and
// any other caller agree on what a preset means.
//
// What the page says about a preset is what is known: its limits, as limits ("up to 15 min ·
// 200 sub-calls"), and what runs of this session on these documents actually took. It used to
// show an "estimate" computed from assumed throughput, which for most documents was the limit
// itself (a 12-second run was announced as "≈ 15 min · ≈ 4.5M tokens"); someone paying per token
// reads that as a price. Nothing here guesses.
import { chooseRunMode } from "../core/run-mode.ts";
import { compactCount, roughDuration } from "../core/fallback-cost.ts";
import { CHARS_PER_TOKEN } from "../engines/tokens.ts";
import { DEFAULT_OPENAI_CONTEXT_WINDOW } from "../engines/openai.ts";
import { engineDescriptor } from "../engines/registry.ts";
import type { Exchange, RunLimits } from "./run-view.ts";
import { engineSettings, type Settings } from "./settings.ts";

export type Effort = "quick" | "thorough" | "exhaustive";
export const EFFORTS: readonly Effort[] = ["quick", "thorough", "exhaustive"];

type PresetLimits = Pick<Settings["run"], "maxIterations" | "maxSubcalls" | "maxTimeS" | "maxDepth">;

export interface Preset extends PresetLimits {
  label: string;
  /** What the preset trades, in a few words. */
  blurb: string;
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
  },
  thorough: {
    label: "Thorough",
    blurb: "reads what the question needs",
    maxIterations: 20,
    maxSubcalls: 200,
    maxTimeS: 900,
    maxDepth: 1,
  },
  exhaustive: {
    label: "Exhaustive",
    blurb: "reads everything, checks twice",
    maxIterations: 40,
    maxSubcalls: 1000,
    maxTimeS: 3600,
    maxDepth: 2,
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

function formatLimitTime(seconds: number): string {
  if (seconds >= 3600 && seconds % 3600 === 0) return `${seconds / 3600} h`;
  return seconds >= 60 ? `${Math.round(seconds / 60)} min` : `${seconds} s`;
}

/** "up to 15 min · 200 sub-calls": what a run at these limits may use, said as a limit. */
export function limitsText(p: PresetLimits): string {
  return `up to ${formatLimitTime(p.maxTimeS)} · ${p.maxSubcalls.toLocaleString("en-US")} sub-calls`;
}

/** The same limits in full, for a tooltip. */
export function limitsDetail(p: PresetLimits): string {
  const depth = p.maxDepth > 1 ? `, child RLMs up to depth ${p.maxDepth}` : "";
  return (
    `At most ${p.maxIterations} turns, ${p.maxSubcalls.toLocaleString("en-US")} sub-calls and ${formatLimitTime(p.maxTimeS)}${depth}. ` +
    "These are limits: a run stops as soon as it has its answer."
  );
}

/** The preset a run was given, from the limits recorded with it; "custom" for any other. */
export function effortOfLimits(limits: RunLimits): Effort | "custom" {
  return (
    EFFORTS.find(
      (e) =>
        PRESETS[e].maxIterations === limits.turns &&
        PRESETS[e].maxSubcalls === limits.subcalls &&
        PRESETS[e].maxTimeS * 1000 === limits.timeMs,
    ) ?? "custom"
  );
}

/** A run of this session that went to its own end, as the page measured it. */
export interface MeasuredRun {
  effort: Effort | "custom";
  direct: boolean;
  docChars: number;
  seconds: number;
  tokens: number;
}

/** Statuses of a run that ended by itself: stopped, failed and cut-off runs measure nothing. */
const FINISHED = new Set<Exchange["status"]>(["answered", "out-of-iterations", "out-of-time", "too-many-errors"]);

/** What each finished run of these exchanges took: wall time and every token, sub-calls included. */
export function measuredRuns(exchanges: readonly Exchange[]): MeasuredRun[] {
  const runs: MeasuredRun[] = [];
  for (const x of exchanges) {
    if (!FINISHED.has(x.status) || x.endedAt === undefined || !x.limits || x.docChars === undefined) continue;
    const tokens = Object.values(x.usage?.models ?? {}).reduce((n, m) => n + m.promptTokens + m.completionTokens, 0);
    runs.push({
      effort: effortOfLimits(x.limits),
      direct: x.mode?.used === "direct",
      docChars: x.docChars,
      // From when the run began: start-up (loading the model) is not what the next question takes.
      seconds: Math.max(0, (x.endedAt - (x.readyAt ?? x.startedAt)) / 1000),
      tokens,
    });
  }
  return runs;
}

function formatSeconds(s: number): string {
  return s < 60 ? `${Math.max(1, Math.round(s))} s` : `${Math.round(s / 60)} min`;
}

function formatTokens(n: number): string {
  return n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)}M` : n >= 1000 ? `${(n / 1000).toFixed(n >= 10_000 ? 0 : 1)}K` : String(n);
}

function range(values: number[], format: (n: number) => string): string {
  const lo = format(Math.min(...values));
  const hi = format(Math.max(...values));
  if (lo === hi) return lo;
  // "12–40 s" rather than "12 s–40 s".
  const unit = (t: string) => t.slice(t.lastIndexOf(" "));
  return lo.includes(" ") && unit(lo) === unit(hi) ? `${lo.slice(0, lo.lastIndexOf(" "))}–${hi}` : `${lo}–${hi}`;
}

/** "took 12 s · 1.8K tokens here" for one run; "took 12–40 s · 1.8K–6K tokens here (3 runs)" for several. */
export function describeMeasured(runs: readonly MeasuredRun[]): string | null {
  if (!runs.length) return null;
  const time = range(
    runs.map((r) => r.seconds),
    formatSeconds,
  );
  const tokens = range(
    runs.map((r) => r.tokens),
    formatTokens,
  );
  return `took ${time} · ${tokens} tokens here${runs.length > 1 ? ` (${runs.length} runs)` : ""}`;
}

export interface EffortChoice {
  /** The preset's limits, as limits. */
  limits: string;
  /** What runs at this effort took on these documents in this session, or null: no guess. */
  measured: string | null;
}

export interface EffortView {
  choices: Record<Effort, EffortChoice>;
  /**
   * The documents fit the model's window, so auto mode answers in one direct call whatever the
   * effort (then the three presets would say the same thing three times); with what such calls
   * took here, when there were any.
   */
  direct: { measured: string | null } | null;
  /**
   * A model on this device's processor and documents larger than its window: what its reading
   * speed means for them, before the effort is chosen (issue 34 #3), or null.
   */
  speed: string | null;
}

/** How fast the chosen model reads prompts here: measured by llama.cpp on this device, or an estimate until then. */
export interface ReadingSpeed {
  tokensPerSecond: number;
  measured: boolean;
}

/** Below this, reading the documents once is quick enough to need no word. */
const WORTH_SAYING_MS = 60_000;

/**
 * "This device read prompts at 13 tokens/s: reading these documents' ≈ 150K tokens once takes
 * ≈ 3.2 h; Quick and Thorough stop before that." Quick (3 min) could be spent before the model
 * had read a tenth of a book on a processor, and nothing said so where the effort is chosen.
 */
export function speedNote(docChars: number, speed: ReadingSpeed | null | undefined): string | null {
  if (!speed || speed.tokensPerSecond <= 0 || docChars <= 0) return null;
  const tokens = docChars / CHARS_PER_TOKEN;
  const ms = (tokens / speed.tokensPerSecond) * 1000;
  if (ms < WORTH_SAYING_MS) return null;
  const rate = speed.tokensPerSecond.toLocaleString("en-US", { maximumFractionDigits: speed.tokensPerSecond < 10 ? 1 : 0 });
  const source = speed.measured
    ? `This device read prompts at ${rate} tokens/s`
    : `At about ${rate} tokens/s (an estimate for this model until a question has run here)`;
  const short = EFFORTS.filter((e) => PRESETS[e].maxTimeS * 1000 < ms).map((e) => PRESETS[e].label);
  const stops = short.length
    ? `; ${short.length > 1 ? `${short.slice(0, -1).join(", ")} and ${short.at(-1)!}` : short[0]!} stop${short.length > 1 ? "" : "s"} before that, with what was read so far`
    : "";
  return `${source}: reading these documents' ≈ ${compactCount(tokens)} tokens once takes ${roughDuration(ms)}${stops}.`;
}

/** What the effort picker says for these settings and documents, from this session's runs. */
export function effortView(
  settings: Settings,
  docChars: number,
  knownWindow: number | undefined,
  exchanges: readonly Exchange[],
  speed?: ReadingSpeed | null,
): EffortView {
  // The window the settings ask for, else what the running engine reported (an endpoint's /models).
  const rootWindow =
    engineDescriptor(settings.backend).contextWindow(engineSettings(settings)) || knownWindow || DEFAULT_OPENAI_CONTEXT_WINDOW;
  const mode = settings.compare ? "rlm" : settings.run.mode;
  const direct = docChars > 0 && chooseRunMode(docChars, 80, rootWindow, mode).mode === "direct";
  const here = measuredRuns(exchanges).filter((r) => docChars > 0 && r.docChars === docChars);
  const choices = Object.fromEntries(
    EFFORTS.map((e) => [
      e,
      { limits: limitsText(PRESETS[e]), measured: describeMeasured(here.filter((r) => r.effort === e && r.direct === direct)) },
    ]),
  ) as Record<Effort, EffortChoice>;
  return {
    choices,
    direct: direct ? { measured: describeMeasured(here.filter((r) => r.direct)) } : null,
    speed: direct ? null : speedNote(docChars, speed),
  };
}
