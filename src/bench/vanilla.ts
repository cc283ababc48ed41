// The baseline: one chat call with as much of the document as fits in the root model's window,
// and a note saying how much was cut. The middle is cut (LongBench's convention), so both ends
// of the document stay visible.
import { ContextWindowExceededError } from "../engines/errors.ts";
import { CHARS_PER_TOKEN, estimateMessagesTokens } from "../engines/tokens.ts";
import type { ChatEngine, ChatMessage, ChatUsage } from "../engines/types.ts";
import { deriveBudgets } from "../core/budgets.ts";
import { stripThinking } from "../core/parse.ts";
import { formatCount } from "./format.ts";
import type { BenchContext, BenchTask } from "./types.ts";

export const VANILLA_SYSTEM_PROMPT =
  "You answer a question about a document. Read the document, then answer the question directly and briefly.";

export type TruncateMode = "middle" | "end";

export interface VanillaOptions {
  /** Tokens reserved for the answer; default: the RLM's per-turn budget for the same window. */
  maxAnswerTokens?: number;
  truncate?: TruncateMode;
  temperature?: number;
  seed?: number;
  signal?: AbortSignal;
}

export interface VanillaOutcome {
  answer: string;
  usage: ChatUsage;
  model: string;
  /** Characters of the document the model saw. */
  shownChars: number;
  totalChars: number;
}

/** A repository as one text: files in path order, each under a header line. */
export function flattenContext(context: BenchContext): string {
  if (context.kind === "text") return context.text;
  return Object.keys(context.files)
    .sort()
    .map((path) => `=== ${path} ===\n${context.files[path]}`)
    .join("\n\n");
}

export interface FittedDocument {
  text: string;
  shownChars: number;
  /** Empty when nothing was cut. */
  note: string;
}

/** The document cut to at most `maxChars` characters, with a note that says what was cut. */
export function fitDocument(doc: string, maxChars: number, mode: TruncateMode = "middle"): FittedDocument {
  const limit = Math.max(0, Math.floor(maxChars));
  if (doc.length <= limit) return { text: doc, shownChars: doc.length, note: "" };
  const cut = doc.length - limit;
  const pct = ((limit / doc.length) * 100).toFixed(doc.length > limit * 100 ? 2 : 1);
  const head = `Note: the document is ${formatCount(doc.length)} characters long and only ${formatCount(limit)} (${pct}%) fit in this model's window.`;
  if (mode === "end") {
    return {
      text: `${doc.slice(0, limit)}\n[... the remaining ${formatCount(cut)} characters were cut ...]`,
      shownChars: limit,
      note: `${head} Shown: the first ${formatCount(limit)} characters; the rest was cut.`,
    };
  }
  const first = Math.ceil(limit / 2);
  const last = limit - first;
  return {
    text: `${doc.slice(0, first)}\n[... ${formatCount(cut)} characters cut here ...]\n${last > 0 ? doc.slice(doc.length - last) : ""}`,
    shownChars: limit,
    note: `${head} Shown: the first ${formatCount(first)} and the last ${formatCount(last)} characters; ${formatCount(cut)} characters in the middle were cut.`,
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
    super(`The model's ${formatCount(window)}-token window has no room for any of the document after the question and answer; use a model with a larger window.`);
  }
}

const SAFETY_TOKENS = 64;
/** Servers count tokens differently from our estimate; after an overflow, retry with less. */
const RETRY_SHRINK = 0.7;

export async function answerDirectly(task: BenchTask, engine: ChatEngine, options: VanillaOptions = {}): Promise<VanillaOutcome> {
  const window = engine.contextWindow;
  const answerTokens =
    options.maxAnswerTokens ?? deriveBudgets({ rootWindow: window, subWindow: window }).maxTokensPerTurn;
  const doc = flattenContext(task.context);
  const overhead = estimateMessagesTokens(vanillaMessages(task.question, fitDocument("", 0))) + 80; // note + cut marker
  let maxChars = Math.floor((window - answerTokens - overhead - SAFETY_TOKENS) * CHARS_PER_TOKEN);
  if (maxChars <= 0) throw new WindowTooSmallError(window);
  for (let attempt = 0; ; attempt++) {
    const fitted = fitDocument(doc, maxChars, options.truncate ?? "middle");
    try {
      const result = await engine.complete(
        {
          messages: vanillaMessages(task.question, fitted),
          maxTokens: answerTokens,
          ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
          ...(options.seed !== undefined ? { seed: options.seed } : {}),
        },
        options.signal ? { signal: options.signal } : {},
      );
      return {
        answer: stripThinking(result.text).trim(),
        usage: result.usage,
        model: result.model || engine.model,
        shownChars: fitted.shownChars,
        totalChars: doc.length,
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
