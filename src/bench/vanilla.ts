// The baseline: one chat call with as much of the document as fits in the root model's window.
// The implementation lives in src/core/direct.ts, shared with the app's compare mode; this
// module adapts it to benchmark tasks.
import {
  answerDirectly as answerFromSource,
  fitDocument as fitSource,
  textSource,
  type FittedDocument,
  type TruncateMode,
} from "../core/direct.ts";
import type { ChatEngine, ChatUsage } from "../engines/types.ts";
import type { BenchContext, BenchTask } from "./types.ts";
import type { Sampling } from "../core/sampling.ts";

export { VANILLA_SYSTEM_PROMPT, type FittedDocument, type TruncateMode } from "../core/direct.ts";

export interface VanillaOptions {
  /** Tokens reserved for the answer; default: the RLM's per-turn budget for the same window. */
  maxAnswerTokens?: number;
  truncate?: TruncateMode;
  sampling?: Sampling;
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

/** The document cut to at most `maxChars` characters, with a note that says what was cut. */
export function fitDocument(doc: string, maxChars: number, mode: TruncateMode = "middle"): Promise<FittedDocument> {
  return fitSource(textSource(doc), maxChars, mode);
}

export async function answerDirectly(task: BenchTask, engine: ChatEngine, options: VanillaOptions = {}): Promise<VanillaOutcome> {
  const { answer, usage, model, shownChars, totalChars } = await answerFromSource({
    engine,
    question: task.question,
    document: textSource(flattenContext(task.context)),
    ...options,
  });
  return { answer, usage, model, shownChars, totalChars };
}
