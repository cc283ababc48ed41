// What the page keeps of a session's runs, as a schema of its own with a version: each question's
// record (what RlmSession's result said, and what the page noted around it) and, apart from it,
// its steps: the run's trajectory records, which hold every prompt (the turns the page shows are
// derived from them: src/core/turn-view.ts).
// A reopened session reads the records only; a question's steps are read when they are shown,
// exported or continued. A change to these shapes is a change of SCHEMA_VERSION with a numbered
// migration (migrations.ts), so a session saved by an older page opens unchanged.
import type { FallbackQuestion } from "../core/fallback-cost.ts";
import type { RankedSource } from "../core/evidence.ts";
import type { RunSteps } from "../core/turn-view.ts";
import type { FallbackSummary, RlmResult, RunStatus, UsageSummary } from "../core/types.ts";
import type { ChatUsage } from "../engines/types.ts";

/** The version of the shapes below; migrations.ts has one migration per version. */
export const SCHEMA_VERSION = 3;

// --- a question's steps: the run's trajectory records (src/core/turn-view.ts derives the view) ---

export type { RunSteps };

/** What a question's steps come to, kept with its record so a reopened session shows it without reading them. */
export interface StepsSummary {
  /** Turns shown ("Show steps (12)"). */
  turns: number;
  /** Whether the model finished any turn (a run that did not says how long it took instead). */
  anyTurnDone: boolean;
  /** Visualizer records kept: the trajectory export needs at least one. */
  iterations: number;
  /** Whether Continue can go on from them: a turn the model took (not the fallback's, not a direct answer unless it was cut off). */
  continuable: boolean;
  /** When the last recorded turn ended (ms): where the clock of a run cut off by a reload stops. */
  lastActivityAt: number | null;
}

export function summarizeSteps(steps: RunSteps): StepsSummary {
  let lastActivityAt: number | null = null;
  for (const it of steps.iterations) {
    const at = Date.parse(it.timestamp) + (it.iteration_time ?? 0) * 1000;
    if (Number.isFinite(at)) lastActivityAt = Math.max(lastActivityAt ?? at, at);
  }
  return {
    turns: steps.iterations.length + (steps.unfinished?.length ?? 0),
    anyTurnDone: steps.iterations.length > 0 || !!steps.unfinished?.some((it) => it.generation_time !== undefined),
    iterations: steps.iterations.length,
    continuable: steps.iterations.some((it) => !it.fallback && !it.direct) || !!steps.iterations.at(-1)?.direct?.cut_off,
    lastActivityAt,
  };
}

// --- a question's record ---------------------------------------------------------------------

export type StoredStatus = RunStatus | "running" | "interrupted";

/** The direct answer compare mode gave beside the run. */
export interface StoredCompare {
  status: "running" | "done" | "failed";
  answer: string;
  durationMs?: number;
  usage?: ChatUsage;
  shownChars?: number;
  totalChars?: number;
  error?: string;
}

export interface RunLimits {
  turns: number;
  subcalls: number;
  timeMs: number;
}

/**
 * One question of a session, as stored: RlmResult's answer, status, usage, sources and how it was
 * answered, and what the page noted around the run. With its steps (`iterations`, `unfinished`)
 * when they are read; without them (none) `steps` says what they hold, and a save leaves the
 * stored steps as they are.
 */
export interface StoredExchange extends RunSteps {
  id: string;
  question: string;
  startedAt: number;
  /**
   * When Python and the model were ready and the run began: the time before it is start-up,
   * shown apart and not against the effort's limit (issue 34 #3). Absent: it began at once.
   */
  readyAt?: number;
  endedAt?: number;
  status: StoredStatus;
  answer: string;
  message?: string;
  usage?: UsageSummary;
  compare?: StoredCompare;
  notices: string[];
  /** The passages the answer came from, best first. */
  sources?: RankedSource[];
  /** Where this question was sent: the endpoint's origin (or "this browser") and the model. */
  endpoint?: { origin: string; model: string };
  /** How it was answered: one direct call or the RLM (auto mode), and who wrote the answer. */
  mode?: RlmResult["mode"];
  producedBy?: RlmResult["producedBy"];
  fallback?: FallbackSummary;
  /** The answer stands although no output showed it (RlmResult.unverified). */
  unverified?: string;
  /** The answer stopped at the model's output limit (RlmResult.cutOff). */
  cutOff?: string;
  /** The limits the run was given, shown beside what it has used while it runs. */
  limits?: RunLimits;
  /** Characters of the session's documents when it was asked: what it took is measured against them. */
  docChars?: number;
  /** Present when the steps were not read (a reopened session): what they hold. */
  steps?: StepsSummary;
  /**
   * While the run waits for the person (issue 28 §3): whether the harness should read the
   * document itself, and what that would cost. Gone once they chose (or the run stopped).
   */
  fallbackQuestion?: FallbackQuestion;
  /** A fresh try (Retry, Edit) of an earlier exchange's question: the id of that question's first exchange (versions.ts). */
  versionOf?: string;
  /** Another version of the same question is the one shown. */
  setAside?: boolean;
  /** Where it stands in the session: when its question was first asked (a retry or Continue keeps the place). Absent: startedAt. */
  placedAt?: number;
}

// --- how a question is kept: its record and, apart, its steps --------------------------------

/** A question's record as kept: everything but its steps, which `steps` summarises. */
export type ExchangeRecord = Omit<StoredExchange, "iterations" | "unfinished" | "steps"> & { steps: StepsSummary };

/**
 * The record to keep and the steps to keep beside it; null steps when the exchange came without
 * them (read from a record alone), so the stored ones stay as they are.
 */
export function splitExchange(exchange: StoredExchange): { record: ExchangeRecord; steps: RunSteps | null } {
  const { iterations, unfinished, steps: summary, ...rest } = exchange;
  if (summary) return { record: { ...rest, steps: summary }, steps: null };
  const steps: RunSteps = { iterations, ...(unfinished?.length ? { unfinished } : {}) };
  return { record: { ...rest, steps: summarizeSteps(steps) }, steps };
}

/** An exchange read from its record alone: no steps, and what they hold. */
export function exchangeFromRecord(record: ExchangeRecord): StoredExchange {
  return { ...record, iterations: [] };
}
