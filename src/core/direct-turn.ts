// What a direct answer and its continuation do alike around their one model call: report events
// at depth 0 through a listener that cannot break the run, and, once the call answered, count
// its usage, report the turn finished and keep it as an iteration of the trajectory.
import type { DirectAnswer } from "./direct.ts";
import { cutOffRecord } from "./direct-continue.ts";
import { iterationRecord } from "./records.ts";
import type { Emit } from "./subcalls.ts";
import type { IterationRecord, RlmEvent, RlmEventListener } from "./types.ts";
import type { UsageTracker } from "./usage.ts";

/** The run's events at depth 0; a listener that throws is ignored. */
export function directEmitter(onEvent: RlmEventListener | undefined): Emit {
  return (event) => {
    try {
      onEvent?.({ ...event, depth: 0 } as RlmEvent);
    } catch {
      // A broken listener must not break the run.
    }
  };
}

/** Counts the call, reports turn `turn` finished and returns its record, `finalAnswer` as its answer. */
export function recordDirectTurn(
  direct: DirectAnswer,
  turn: number,
  started: number,
  finalAnswer: string | null,
  usage: UsageTracker,
  emit: Emit,
): IterationRecord {
  usage.addTime("generationMs", direct.durationMs);
  usage.addCall(direct.model, direct.usage, "root");
  emit({ type: "turn-finished", turn, response: direct.answer, usage: direct.usage, durationMs: direct.durationMs });
  const record = iterationRecord(turn, started, direct.messages, direct.answer);
  record.final_answer = finalAnswer;
  record.iteration_time = direct.durationMs / 1000;
  record.direct = { shown_chars: direct.shownChars, total_chars: direct.totalChars, ...cutOffRecord(direct) };
  emit({ type: "iteration", record });
  return record;
}
