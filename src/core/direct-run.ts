// Auto mode's other branch: the whole document and the question in one call (direct.ts), shown
// and recorded like a one-turn run, so the page, the CLI and the exported trajectory treat it
// like any answer and say how it was produced.
import { EngineAbortedError } from "../engines/errors.ts";
import type { ChatEngine } from "../engines/types.ts";
import type { HistoryEntry } from "../repl/types.ts";
import { answerDirectly, type DocumentSource } from "./direct.ts";
import { cutOffResult } from "./direct-continue.ts";
import { directEmitter, recordDirectTurn } from "./direct-turn.ts";
import { signalAt } from "./stop.ts";
import { directAnswerTokens } from "./run-mode.ts";
import type { RlmConfig, RlmEventListener, RlmResult } from "./types.ts";
import { UsageTracker } from "./usage.ts";

export interface DirectRunInput {
  question: string;
  /** Earlier questions and answers of the session: a follow-up needs them. */
  previous: readonly HistoryEntry[];
  engine: ChatEngine;
  document: DocumentSource;
  config: RlmConfig;
  /** Why the direct answer was chosen, for the result. */
  reason: string;
  signal: AbortSignal;
  onEvent?: RlmEventListener;
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
    const direct = await answerDirectly({
      engine: i.engine,
      question: directQuestion(i.question, i.previous),
      document: i.document,
      // --max-tokens (the page's tokens per turn) holds for the one direct turn too.
      maxAnswerTokens: directAnswerTokens(i.engine.contextWindow, i.config.maxTokensPerTurn),
      sampling: i.config.sampling,
      signal,
      onToken: (text) => emit({ type: "token", turn: 0, text }),
    });
    const record = recordDirectTurn(direct, 0, started, direct.answer || null, usage, emit);
    const base = { iterations: [record], usage: usage.snapshot(), mode };
    if (!direct.answer)
      return { ...base, answer: "", status: "failed", message: "The model gave an empty answer. Ask again, or choose RLM in Settings." };
    return { ...base, answer: direct.answer, status: "answered", producedBy: "model", ...cutOffResult(direct) };
  } catch (err) {
    const empty = { answer: "", iterations: [], usage: usage.snapshot(), mode };
    if (outOfTime.aborted && !i.signal.aborted) {
      const limit = Math.round(i.config.maxWallTimeMs / 1000);
      const message = `The ${limit} s time limit was reached before the model finished its answer. Allow more time, or ask with the RLM method.`;
      return { ...empty, status: "out-of-time", message };
    }
    const stopped = i.signal.aborted || err instanceof EngineAbortedError;
    return {
      ...empty,
      status: stopped ? "stopped" : "failed",
      message: stopped ? "Stopped." : err instanceof Error ? err.message : String(err),
    };
  }
}
