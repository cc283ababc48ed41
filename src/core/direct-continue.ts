// A direct answer that stopped at the output limit (finish_reason "length") says so, and Continue
// goes on from where it stopped: the same prompt, the answer so far as the model's own turn, and a
// request to go on. Before, a cut-off answer got the same green "Answered" as a finished one and
// nothing offered the rest (issue 34 #4).
import { EngineAbortedError } from "../engines/errors.ts";
import type { ChatEngine } from "../engines/types.ts";
import type { HistoryEntry } from "../repl/types.ts";
import { answerDirectly, type DirectAnswer, type DocumentSource } from "./direct.ts";
import { directQuestion } from "./direct-run.ts";
import { groupDigits } from "./numbers.ts";
import type { IterationRecord, RlmConfig, RlmEventListener, RlmResult } from "./types.ts";
import { directEmitter, recordDirectTurn } from "./direct-turn.ts";
import { UsageTracker } from "./usage.ts";

/** What a cut-off answer says about itself (the page offers Continue beside it). */
export function cutOffMessage(maxTokens: number): string {
  return `The answer stopped at the model's output limit (${groupDigits(maxTokens)} tokens): it is cut off, and the rest was not written.`;
}

/** The trajectory's note that a direct answer was cut off, and at what limit. */
export function cutOffRecord(direct: DirectAnswer): { cut_off?: true; max_tokens?: number } {
  return direct.cutOff ? { cut_off: true, max_tokens: direct.maxTokens } : {};
}

export function cutOffResult(direct: DirectAnswer): { cutOff?: string } {
  return direct.cutOff ? { cutOff: cutOffMessage(direct.maxTokens) } : {};
}

/** Whether a run's last step is a direct answer that was cut off, so Continue writes the rest. */
export function continuesDirect(iterations: readonly IterationRecord[]): boolean {
  return !!iterations.at(-1)?.direct?.cut_off;
}

export interface DirectContinueInput {
  question: string;
  previous: readonly HistoryEntry[];
  engine: ChatEngine;
  document: DocumentSource;
  config: RlmConfig;
  /** The run so far; its last step is the cut-off answer. */
  iterations: readonly IterationRecord[];
  signal: AbortSignal;
  onEvent?: RlmEventListener;
}

/** Writes the rest of a cut-off direct answer: one more call, shown as the run's next turn. */
export async function continueDirect(i: DirectContinueInput): Promise<RlmResult> {
  const last = i.iterations.at(-1)!;
  const soFar = last.final_answer ?? "";
  const turn = i.iterations.length;
  const usage = new UsageTracker();
  const emit = directEmitter(i.onEvent);
  const mode = { used: "direct" as const, reason: "continuing an answer cut off at the output limit" };
  emit({ type: "turn-started", turn });
  const started = Date.now();
  const outOfTime = AbortSignal.timeout(i.config.maxWallTimeMs);
  const signal = AbortSignal.any([i.signal, outOfTime]);
  try {
    const direct = await answerDirectly({
      engine: i.engine,
      question: directQuestion(i.question, i.previous),
      document: i.document,
      ...(last.direct?.max_tokens ? { maxAnswerTokens: last.direct.max_tokens } : {}),
      sampling: i.config.sampling,
      signal,
      onToken: (text) => emit({ type: "token", turn, text }),
      continueFrom: soFar,
    });
    const answer = soFar + direct.answer;
    const record = recordDirectTurn(direct, turn, started, answer, usage, emit);
    return {
      answer,
      status: "answered",
      producedBy: "model",
      iterations: [record],
      usage: usage.snapshot(),
      mode,
      ...cutOffResult(direct),
    };
  } catch (err) {
    // The answer so far stays, still cut off: a failed or stopped continuation loses nothing.
    const kept = { answer: soFar, iterations: [], usage: usage.snapshot(), mode, cutOff: cutOffMessage(last.direct?.max_tokens ?? 0) };
    return { ...kept, ...whyItEnded(err, i, outOfTime) };
  }
}

/** Why a continuation ended without the rest: the time limit, Stop, or the engine's error. */
function whyItEnded(err: unknown, i: DirectContinueInput, outOfTime: AbortSignal): Pick<RlmResult, "status" | "message"> {
  if (outOfTime.aborted && !i.signal.aborted) {
    const limit = Math.round(i.config.maxWallTimeMs / 1000);
    return { status: "out-of-time", message: `The ${limit} s time limit was reached before the model finished its answer.` };
  }
  const stopped = i.signal.aborted || err instanceof EngineAbortedError;
  return { status: stopped ? "stopped" : "failed", message: stopped ? "Stopped." : err instanceof Error ? err.message : String(err) };
}
