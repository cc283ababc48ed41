// Auto mode's other branch: the whole document and the question in one call (direct.ts), shown
// and recorded like a one-turn run, so the page, the CLI and the exported trajectory treat it
// like any answer and say how it was produced.
import { cutOffResult } from "./direct-continue.ts";
import { callDirect, directEmitter, directEndedBy, recordDirectTurn, type DirectCallInput } from "./direct-turn.ts";
import { signalAt } from "./stop.ts";
import { directAnswerTokens } from "./run-mode.ts";
import type { RlmEventListener, RlmResult } from "./types.ts";
import { UsageTracker } from "./usage.ts";

export interface DirectRunInput extends DirectCallInput {
  /** Why the direct answer was chosen, for the result. */
  reason: string;
  onEvent?: RlmEventListener;
}

export async function runDirect(i: DirectRunInput): Promise<RlmResult> {
  const usage = new UsageTracker();
  const emit = directEmitter(i.onEvent);
  const mode = { used: "direct" as const, reason: i.reason };
  emit({ type: "run-started", question: i.question, contextChars: i.document.totalChars });
  emit({ type: "turn-started", turn: 0 });
  const started = Date.now();
  // The run's time limit holds here too: one call can take as long as a whole RLM run.
  const outOfTime = signalAt((i.config.startedAt ?? started) + i.config.maxWallTimeMs);
  const signal = AbortSignal.any([i.signal, outOfTime]);
  try {
    const direct = await callDirect(i, 0, signal, emit, {
      // --max-tokens (the page's tokens per turn) holds for the one direct turn too.
      maxAnswerTokens: directAnswerTokens(i.engine.contextWindow, i.config.maxTokensPerTurn),
    });
    const record = recordDirectTurn(direct, 0, started, direct.answer || null, usage, emit);
    const base = { iterations: [record], usage: usage.snapshot(), mode };
    if (!direct.answer)
      return { ...base, answer: "", status: "failed", message: "The model gave an empty answer. Ask again, or choose RLM in Settings." };
    return { ...base, answer: direct.answer, status: "answered", producedBy: "model", ...cutOffResult(direct) };
  } catch (err) {
    const empty = { answer: "", iterations: [], usage: usage.snapshot(), mode };
    return { ...empty, ...directEndedBy(err, i, outOfTime, " Allow more time, or ask with the RLM method.") };
  }
}
