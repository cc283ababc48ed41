// The last request when turns, time or patience ran out: the model is asked for its best answer
// and the reply is played like any turn (the canonical profile answers with a cell). Prose is not
// an answer: without a usable one the loop decides what comes next (the fallback, or nothing
// when time is up).
import type { RootAsked } from "./ask-root.ts";
import { parseRoot } from "./ask-root.ts";
import { iterationRecord } from "./records.ts";
import { errorText, unverified, type Outcome } from "./run-ending.ts";
import type { Emit } from "./subcalls.ts";
import { playTurn, type TurnHost } from "./turn.ts";
import type { IterationRecord, RunStatus } from "./types.ts";

const FINAL_REQUEST_TIMEOUT_MS = 120_000;

export interface BestAnswerHost {
  turn: number;
  /** The profile's words asking for the best answer. */
  finalRequest: string;
  /** The person's Stop (the run's own signal may already be aborted by the deadline). */
  userSignal: AbortSignal | undefined;
  emit: Emit;
  ask(turn: number, extra: string, signal: AbortSignal): Promise<RootAsked>;
  addStep(record: IterationRecord): void;
  turnHost(turn: number, record: IterationRecord): TurnHost;
}

/** The model's best answer as the run's outcome; null when its reply gave no usable answer. */
export async function askBestAnswer(host: BestAnswerHost, status: RunStatus, why: string): Promise<Outcome | null> {
  const { turn, emit } = host;
  emit({ type: "notice", message: `${why} Asking the model for its best answer.` });
  emit({ type: "turn-started", turn });
  const startedAt = Date.now();
  // Only Stop and a timeout of its own end this request.
  const timeout = AbortSignal.timeout(FINAL_REQUEST_TIMEOUT_MS);
  const signal = host.userSignal ? AbortSignal.any([host.userSignal, timeout]) : timeout;
  try {
    const asked = await host.ask(turn, host.finalRequest, signal);
    const record = iterationRecord(turn, startedAt, asked.messages, asked.result.text);
    host.addStep(record);
    const outcome = await playTurn(parseRoot(asked, emit), host.turnHost(turn, record), true);
    if (outcome.checks.length) record.harness_notes = outcome.checks;
    record.final_answer = outcome.answer;
    emit({ type: "iteration", record });
    if (outcome.answer !== null)
      return { answer: outcome.answer, status, message: why, producedBy: "model", ...unverified(outcome.unsupported) };
  } catch (err) {
    if (host.userSignal?.aborted) return { answer: "", status: "stopped", message: "Stopped before the model gave its best answer." };
    return { answer: "", status, message: `${why} The final request failed too: ${errorText(err)}` };
  }
  return null;
}
