// Answering directly, without the RLM: as much of the document as fits the window, in one call.
// The app's compare mode and the benchmark's "vanilla" baseline both use this, so the two
// methods are compared on the same model with the same cut. The middle is cut (LongBench's
// convention), so both ends of the document stay visible, and the prompt says how much is gone.
import { ContextWindowExceededError } from "../engines/errors.ts";
import { CHARS_PER_TOKEN, estimateMessagesTokens } from "../engines/tokens.ts";
import type { ChatEngine, ChatMessage, ChatUsage } from "../engines/types.ts";
import { deriveBudgets } from "./budgets.ts";
import { stripThinking } from "./parse.ts";
import { groupDigits } from "./numbers.ts";
import type { Sampling } from "./sampling.ts";

/** A document read from either end, so a huge one never has to be held whole. */
export interface DocumentSource {
  totalChars: number;
  /** The first `n` characters (all of them if shorter). */
  head(n: number): Promise<string>;
  /** The last `n` characters. */
  tail(n: number): Promise<string>;
}

export type TruncateMode = "middle" | "end";

export interface FittedDocument {
  text: string;
  shownChars: number;
  /** Empty when nothing was cut. */
  note: string;
}

export const VANILLA_SYSTEM_PROMPT =
  "You answer a question about a document. Read the document, then answer the question directly and briefly.";

const count = groupDigits;

/** The document cut to at most `maxChars` characters, with a note that says what was cut. */
export async function fitDocument(doc: DocumentSource, maxChars: number, mode: TruncateMode = "middle"): Promise<FittedDocument> {
  const limit = Math.max(0, Math.floor(maxChars));
  const total = doc.totalChars;
  if (total <= limit) {
    const text = await doc.head(total);
    return { text, shownChars: text.length, note: "" };
  }
  const cut = total - limit;
  const pct = ((limit / total) * 100).toFixed(total > limit * 100 ? 2 : 1);
  const head = `Note: the document is ${count(total)} characters long and only ${count(limit)} (${pct}%) fit in this model's window.`;
  if (mode === "end") {
    return {
      text: `${await doc.head(limit)}\n[... the remaining ${count(cut)} characters were cut ...]`,
      shownChars: limit,
      note: `${head} Shown: the first ${count(limit)} characters; the rest was cut.`,
    };
  }
  const first = Math.ceil(limit / 2);
  const last = limit - first;
  return {
    text: `${await doc.head(first)}\n[... ${count(cut)} characters cut here ...]\n${last > 0 ? await doc.tail(last) : ""}`,
    shownChars: limit,
    note: `${head} Shown: the first ${count(first)} and the last ${count(last)} characters; ${count(cut)} characters in the middle were cut.`,
  };
}

export function vanillaMessages(question: string, fitted: FittedDocument): ChatMessage[] {
  const user = [fitted.note, `Document:\n<<<\n${fitted.text}\n>>>`, `Question: ${question}`].filter(Boolean).join("\n\n");
  return [
    { role: "system", content: VANILLA_SYSTEM_PROMPT },
    { role: "user", content: user },
  ];
}

export class WindowTooSmallError extends Error {
  override name = "WindowTooSmallError";
  constructor(window: number) {
    super(
      `The model's ${count(window)}-token window has no room for any of the document after the question and answer; use a model with a larger window.`,
    );
  }
}

export interface DirectAnswerOptions {
  engine: ChatEngine;
  question: string;
  document: DocumentSource;
  /** Tokens reserved for the answer; default: the RLM's per-turn budget for the same window. */
  maxAnswerTokens?: number;
  truncate?: TruncateMode;
  /** Temperature, top-p, seed as one value (src/core/sampling.ts); absent: the engine's defaults. */
  sampling?: Sampling;
  signal?: AbortSignal;
  onToken?: (text: string) => void;
  /**
   * An answer that stopped at the output limit, to go on from: it follows the prompt as the
   * model's own turn, with a request to continue; `answer` is then only the continuation.
   */
  continueFrom?: string;
}

export interface DirectAnswer {
  answer: string;
  usage: ChatUsage;
  model: string;
  durationMs: number;
  /** Characters of the document the model saw. */
  shownChars: number;
  totalChars: number;
  /** The prompt as it was sent (for the trajectory). */
  messages: ChatMessage[];
  /** The model stopped at the output limit (finish_reason "length"), mid-answer. */
  cutOff: boolean;
  /** The output limit it was given, tokens. */
  maxTokens: number;
}

const SAFETY_TOKENS = 64;
/** Servers count tokens differently from our estimate; after an overflow, retry with less. */
const RETRY_SHRINK = 0.7;

export async function answerDirectly(o: DirectAnswerOptions): Promise<DirectAnswer> {
  const window = o.engine.contextWindow;
  const answerTokens = o.maxAnswerTokens ?? deriveBudgets({ rootWindow: window, subWindow: window }).maxTokensPerTurn;
  const empty: FittedDocument = { text: "", shownChars: 0, note: "" };
  const tail = o.continueFrom !== undefined ? continuationMessages(o.continueFrom) : [];
  const overhead = estimateMessagesTokens([...vanillaMessages(o.question, empty), ...tail]) + 80; // note + cut marker
  let maxChars = Math.floor((window - answerTokens - overhead - SAFETY_TOKENS) * CHARS_PER_TOKEN);
  if (maxChars <= 0) throw new WindowTooSmallError(window);
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    const fitted = await fitDocument(o.document, maxChars, o.truncate ?? "middle");
    const messages = [...vanillaMessages(o.question, fitted), ...tail];
    try {
      const result = await o.engine.complete(
        {
          messages,
          maxTokens: answerTokens,
          sampling: o.sampling,
        },
        { ...(o.signal ? { signal: o.signal } : {}), ...(o.onToken ? { onToken: o.onToken } : {}) },
      );
      return {
        answer: o.continueFrom !== undefined ? continuation(result.text) : stripThinking(result.text).trim(),
        usage: result.usage,
        model: result.model || o.engine.model,
        durationMs: Date.now() - started,
        shownChars: fitted.shownChars,
        totalChars: o.document.totalChars,
        messages,
        cutOff: result.finishReason === "length",
        maxTokens: answerTokens,
      };
    } catch (err) {
      if (err instanceof ContextWindowExceededError && attempt < 2 && fitted.shownChars > 0) {
        maxChars = Math.floor(fitted.shownChars * RETRY_SHRINK);
        continue;
      }
      throw err;
    }
  }
}

/** Asks the model to go on with its own answer, cut off at the output limit. */
export const CONTINUE_PROMPT =
  "Your answer above stopped at the output limit. Continue it from exactly where it stopped: do not repeat anything, do not start over.";

function continuationMessages(answer: string): ChatMessage[] {
  return [
    { role: "assistant", content: answer },
    { role: "user", content: CONTINUE_PROMPT },
  ];
}

/** A continuation's text, its leading space kept (it may go on mid-sentence); a thinking block's is dropped. */
function continuation(text: string): string {
  const stripped = stripThinking(text);
  return (stripped === text ? stripped : stripped.trimStart()).trimEnd();
}

/** A document already in memory as one string (CLI, benchmarks, tests). */
export function textSource(text: string): DocumentSource {
  return {
    totalChars: text.length,
    head: async (n) => text.slice(0, n),
    tail: async (n) => (n > 0 ? text.slice(Math.max(0, text.length - n)) : ""),
  };
}
