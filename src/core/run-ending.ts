// How a question's run ends, in one vocabulary: the loop decides an `Ending`, and `finish` turns
// it into an `Outcome` (the answer, its status, the message the person reads). Shared by the
// loop and the harness's own reading so both speak of endings the same way.
import type { FallbackSummary, RunStatus } from "./types.ts";

/**
 * How a run ends. Limits still get one last request for the model's best answer (and the
 * fallback when it gives none); "fallback" hands the question to the harness's own reading.
 */
export type Ending =
  | { kind: "answered"; answer: string; unsupported: boolean }
  | { kind: "stopped"; message: string }
  /** `cause`: what the model did, for the diagnosis if the harness has to take over. */
  | { kind: "limit"; status: Exclude<RunStatus, "answered" | "stopped" | "failed">; why: string; cause: string }
  | { kind: "fallback"; cause: string }
  | { kind: "failed"; message: string }
  /** Out of time with nothing to ask for: no best answer, no fallback. */
  | { kind: "out-of-time"; message: string };

export const STOPPED: Ending = { kind: "stopped", message: "Stopped." };

/** The one diagnosis the person reads when the harness takes over (issue 28: one explanation, the right cause). */
export const couldNotDrive = (cause: string) => `The model could not drive the run: ${cause}.`;

/** What the run reports, before its steps, usage and sources are attached. */
export interface Outcome {
  answer: string;
  status: RunStatus;
  message?: string;
  producedBy?: "model" | "fallback";
  fallback?: FallbackSummary;
  unverified?: string;
}

/** An answer the model submitted again after the evidence gate asked for support it never printed. */
export const unverified = (unsupported: boolean): { unverified?: string } =>
  unsupported
    ? { unverified: "No output of the run showed this answer: the model was asked for evidence and submitted it again without any." }
    : {};

/** The endings that need no more work: no last request, no reading. */
export function outcomeOf(ending: Exclude<Ending, { kind: "limit" | "fallback" }>): Outcome {
  if (ending.kind === "answered")
    return { answer: ending.answer, status: "answered", producedBy: "model", ...unverified(ending.unsupported) };
  if (ending.kind === "out-of-time") return { answer: "", status: "out-of-time", message: ending.message };
  return { answer: "", status: ending.kind, message: ending.message };
}

/** Why the no-action counter hands the run to the fallback, in words. */
export function nothingRan(idle: { consecutive: number; total: number }): string {
  return idle.consecutive >= 2
    ? `it wrote nothing that could run in ${idle.consecutive} turns in a row`
    : `it wrote nothing that could run in ${idle.total} turns of this run`;
}

export const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));
