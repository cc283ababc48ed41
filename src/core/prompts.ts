// What the root model reads. Written for small models with 4K windows: short, concrete, one
// worked example, and every number (chunk size, output cap) taken from the real budgets.
import type { ContextInfo } from "../repl/protocol.ts";
import type { HistoryEntry } from "../repl/types.ts";
import type { Budgets } from "./budgets.ts";
import { CHARS_PER_TOKEN } from "../engines/tokens.ts";
import { groupDigits } from "./numbers.ts";
import { helperLines } from "./repl-vocabulary.ts";

export interface PromptInputs {
  budgets: Budgets;
  /** Whether rlm_query starts a child RLM (depth allows) or is a plain sub-call. */
  recursive: boolean;
}

/** Numbers in prose get thousands separators; numbers inside code never do (8,000 is a tuple). */
const fmt = groupDigits;

export function systemPrompt({ budgets, recursive }: PromptInputs): string {
  return `You answer a question about a document that is too long to read at once. The document is the variable \`context\` in a Python REPL; you only see what your code prints.

Write Python in a \`\`\`repl block. It runs after your reply and you get its output. Variables persist between blocks. Available:
${helperLines("standard", { budgets, recursive })}

How to work:
1. Look before you read: print len(context), a short slice, or regex matches. Only ${fmt(budgets.outputCharsPerCell)} characters of output are shown per block.
2. Use Python (re, str methods, collections.Counter) for exact search and counting. Use llm_query on chunks to understand text: \`for i in range(0, len(context), ${budgets.chunkChars})\`.
3. Keep results in variables, print small summaries, check them.
4. When sure, call FINAL(...) with a short, direct answer to the question.

Example:
\`\`\`repl
import re
hits = [m.start() for m in re.finditer(r"(?i)deadline", context)]
print(len(hits))
print(context[max(0, hits[0] - 300):hits[0] + 300] if hits else "no match")
\`\`\``;
}

export function describeContext(info: ContextInfo | null): string {
  if (!info) return "`context` is empty.";
  const size = `${fmt(info.total_chars)} characters (about ${fmt(Math.ceil(info.total_chars / CHARS_PER_TOKEN))} tokens)`;
  if (info.type === "str") return `\`context\` is a str of ${size}.`;
  if (info.type === "dict") {
    const keys = (info.keys_preview ?? [])
      .slice(0, 8)
      .map((k) => JSON.stringify(k))
      .join(", ");
    const more = info.items > 8 ? `, … (${fmt(info.items)} in all)` : "";
    return `\`context\` is a dict of ${fmt(info.items)} documents (path -> text), ${size} in total. Keys: ${keys}${more}.`;
  }
  if (info.type === "list") return `\`context\` is a list of ${fmt(info.items)} str, ${size} in total.`;
  return `\`context\` is a ${info.type} of ${size}.`;
}

export function firstUserMessage(options: {
  question: string;
  context: ContextInfo | null;
  previous: HistoryEntry[];
  budgets: Budgets;
  /** False when the REPL was restarted since those questions (page reload, crash). */
  previousVariablesKept?: boolean;
}): string {
  const { question, context, previous, budgets } = options;
  let q = question.trim();
  if (q.length > budgets.questionChars) {
    q = `${q.slice(0, budgets.questionChars)} … [the question is cut here; the full text is in \`context\`]`;
  }
  const parts = [`Question: ${q}`, describeContext(context)];
  if (previous.length) {
    const recent = previous.slice(-3);
    const lines = recent.map(
      (h, i) => `${previous.length - recent.length + i + 1}. Q: ${clip(h.question, 200)} → A: ${clip(h.answer, 300)}`,
    );
    const vars =
      options.previousVariablesKept === false ? "their variables are gone: the REPL was restarted" : "their variables still exist";
    parts.push(`Earlier questions in this session (${vars}; \`history\` holds every question and answer):\n${lines.join("\n")}`);
  }
  parts.push("Start by looking at `context` in a ```repl block.");
  return parts.join("\n\n");
}

export function turnFooter(turn: number, maxIterations: number): string {
  const left = maxIterations - turn;
  if (left <= 1) return `Turn ${turn + 1} of ${maxIterations} is your last: call FINAL(...) now with your best answer.`;
  return `Turn ${turn + 1} of ${maxIterations}. Continue, or call FINAL(...) when you have the answer.`;
}

export const FINAL_REQUEST =
  "You are out of turns. Do not write code. Reply with FINAL(your best answer to the question) based on what you found so far.";

export function droppedTurnsNote(dropped: number): string {
  return `\n\n[Turns 1–${dropped} were removed to fit the model's window. Their variables still exist: SHOW_VARS() lists them.]`;
}

function clip(text: string, max: number): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
}
