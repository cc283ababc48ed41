// What a direct answer and its continuation do alike around their one model call: report events
// at depth 0 through a listener that cannot break the run, make the call (the question with the
// conversation so far, streamed as the turn's tokens), and, once it answered, count its usage,
// report the turn finished and keep it as an iteration of the trajectory; or say why it did not.
import { EngineAbortedError } from "../engines/errors.ts";
import type { ChatEngine } from "../engines/types.ts";
import type { HistoryEntry } from "../repl/types.ts";
import { answerDirectly, type DirectAnswer, type DirectAnswerOptions, type DocumentSource } from "./direct.ts";
import { cutOffRecord } from "./direct-continue.ts";
import { iterationRecord } from "./records.ts";
import type { Emit } from "./subcalls.ts";
import type { IterationRecord, RlmConfig, RlmEvent, RlmEventListener, RlmResult } from "./types.ts";
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

/** What a direct call needs from its run. */
export interface DirectCallInput {
  question: string;
  /** Earlier questions and answers of the session: a follow-up needs them. */
  previous: readonly HistoryEntry[];
  engine: ChatEngine;
  document: DocumentSource;
  config: RlmConfig;
  /** Stop. */
  signal: AbortSignal;
}

const clip = (text: string, max: number) => {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
};

/** The question with the last few exchanges after it, as the RLM's first message has them. */
export function directQuestion(question: string, previous: readonly HistoryEntry[]): string {
  if (!previous.length) return question;
  const lines = previous.slice(-3).map((h) => `- Q: ${clip(h.question, 200)} → A: ${clip(h.answer, 300)}`);
  return `${question}\n\n(Earlier questions in this conversation, for reference:\n${lines.join("\n")})`;
}

/** The one model call of turn `turn`, under `signal` (Stop and the time limit), its tokens shown as that turn's. */
export function callDirect(
  i: DirectCallInput,
  turn: number,
  signal: AbortSignal,
  emit: Emit,
  extra: Pick<DirectAnswerOptions, "maxAnswerTokens" | "continueFrom">,
): Promise<DirectAnswer> {
  return answerDirectly({
    engine: i.engine,
    question: directQuestion(i.question, i.previous),
    document: i.document,
    sampling: i.config.sampling,
    signal,
    onToken: (text) => emit({ type: "token", turn, text }),
    ...extra,
  });
}

/** Why a direct call ended without an answer: the time limit (`advice` after its message), Stop, or the engine's error. */
export function directEndedBy(
  err: unknown,
  i: DirectCallInput,
  outOfTime: AbortSignal,
  advice = "",
): Pick<RlmResult, "status" | "message"> {
  if (outOfTime.aborted && !i.signal.aborted) {
    const limit = Math.round(i.config.maxWallTimeMs / 1000);
    return { status: "out-of-time", message: `The ${limit} s time limit was reached before the model finished its answer.${advice}` };
  }
  const stopped = i.signal.aborted || err instanceof EngineAbortedError;
  return { status: stopped ? "stopped" : "failed", message: stopped ? "Stopped." : err instanceof Error ? err.message : String(err) };
}
