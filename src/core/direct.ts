// Answering directly, without the RLM: as much of the document as fits the window, in one
// call. The app's compare mode and the benchmark's "vanilla" baseline both use this, so the
// two methods are compared on the same model with the same cut.
import { CHARS_PER_TOKEN, estimateTokens } from "../engines/tokens.ts";
import type { ChatEngine, ChatUsage } from "../engines/types.ts";
import { stripThinking } from "./parse.ts";

export interface DocumentPrefixSource {
  totalChars: number;
  /** The first `maxChars` characters of the document (all of it if shorter). */
  read(maxChars: number): Promise<string>;
}

export interface DirectAnswerOptions {
  engine: ChatEngine;
  question: string;
  document: DocumentPrefixSource;
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  seed?: number;
  signal?: AbortSignal;
  onToken?: (text: string) => void;
}

export interface DirectAnswer {
  answer: string;
  usage: ChatUsage;
  durationMs: number;
  shownChars: number;
  totalChars: number;
  /** True when part of the document did not fit. */
  cut: boolean;
}

const SYSTEM =
  "Answer the question using only the document. Be brief and direct. If the document was cut and the part shown does not contain the answer, say that it was not in the part you could read.";

export async function answerDirectly(o: DirectAnswerOptions): Promise<DirectAnswer> {
  const maxTokens = o.maxTokens ?? Math.min(1024, Math.floor(o.engine.contextWindow / 4));
  const overhead = estimateTokens(SYSTEM) + estimateTokens(o.question) + 80;
  const roomChars = Math.max(0, Math.floor((o.engine.contextWindow - maxTokens - overhead) * CHARS_PER_TOKEN));
  const shown = await o.document.read(Math.min(roomChars, o.document.totalChars));
  const cut = shown.length < o.document.totalChars;
  const header = cut
    ? `Document (the first ${shown.length.toLocaleString("en-US")} of ${o.document.totalChars.toLocaleString("en-US")} characters; the rest was cut to fit the model's window):`
    : "Document:";
  const started = Date.now();
  const result = await o.engine.complete(
    {
      messages: [
        { role: "system", content: SYSTEM },
        { role: "user", content: `${header}\n<document>\n${shown}\n</document>\n\nQuestion: ${o.question}` },
      ],
      maxTokens,
      ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
      ...(o.topP !== undefined ? { topP: o.topP } : {}),
      ...(o.seed !== undefined ? { seed: o.seed } : {}),
    },
    { ...(o.signal ? { signal: o.signal } : {}), ...(o.onToken ? { onToken: o.onToken } : {}) },
  );
  return {
    answer: stripThinking(result.text).trim(),
    usage: result.usage,
    durationMs: Date.now() - started,
    shownChars: shown.length,
    totalChars: o.document.totalChars,
    cut,
  };
}

/** A prefix source over a string already in memory (CLI, benchmarks, tests). */
export function textPrefixSource(text: string): DocumentPrefixSource {
  return { totalChars: text.length, read: async (n) => text.slice(0, n) };
}
