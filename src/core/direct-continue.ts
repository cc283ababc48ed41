// A direct answer that stopped at the output limit (finish_reason "length") says so, and Continue
// goes on from where it stopped: the same prompt, the answer so far as the model's own turn, and a
// request to go on. Before, a cut-off answer got the same green "Answered" as a finished one and
// nothing offered the rest (issue 34 #4).
import type { DirectAnswer } from "./direct.ts";
import { groupDigits } from "./numbers.ts";
import type { IterationRecord, RlmEventListener, RlmResult } from "./types.ts";
import { callDirect, directEmitter, directEndedBy, recordDirectTurn, type DirectCallInput } from "./direct-turn.ts";
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

export interface DirectContinueInput extends DirectCallInput {
  /** The run so far; its last step is the cut-off answer. */
  iterations: readonly IterationRecord[];
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
    const direct = await callDirect(i, turn, signal, emit, {
      ...(last.direct?.max_tokens ? { maxAnswerTokens: last.direct.max_tokens } : {}),
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
    return { ...kept, ...directEndedBy(err, i, outOfTime) };
  }
}
