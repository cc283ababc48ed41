// Final-answer rules for small models (small-models.md M03, M04, M15): which FINAL markers
// count, when FINAL(x) means the variable x, which "answers" are not answers at all (empty,
// "think", a plan), and how an accepted answer is tidied. Pure functions.
import { proseOf, unquote } from "./parse.ts";

export type FinalMarker =
  /** FINAL(value): a literal answer. `bareName` is set when the value is a lone identifier. */
  | { kind: "value"; value: string; bareName: string | null }
  /** FINAL_VAR(name) / FINAL_VAR("name"). */
  | { kind: "variable"; name: string }
  /** FINAL_VAR("name") = expression: the model meant "name = expression, then submit it". */
  | { kind: "assignment"; name: string; expression: string };

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The FINAL marker of a reply's visible text (thinking already removed), or null. Markers count
 * only at the start of a line and outside code blocks, so "I will call FINAL(x) later" and a
 * FINAL inside a ```repl block (which the REPL runs itself) are not text answers.
 */
export function findFinalMarker(text: string): FinalMarker | null {
  const prose = proseOf(text);
  const assign = /^\s*(?:\*\*)?FINAL_VAR\(\s*["']?([A-Za-z_]\w*)["']?\s*\)\s*=\s*(.+)$/m.exec(prose);
  if (assign) return { kind: "assignment", name: assign[1]!, expression: assign[2]!.trim() };
  const finalVar = /^\s*(?:\*\*)?FINAL_VAR\(\s*["']?([A-Za-z_]\w*)["']?\s*\)/m.exec(prose);
  if (finalVar) return { kind: "variable", name: finalVar[1]! };
  const final = /^\s*(?:\*\*)?FINAL\(([\s\S]*)\)(?:\*\*)?[ \t]*$/m.exec(prose);
  if (!final) return null;
  const raw = (final[1] ?? "").trim();
  const value = unquote(raw);
  // Quoted text is a literal even when it looks like a name: FINAL("Paris").
  const bareName = raw === value && IDENTIFIER.test(value) ? value : null;
  return { kind: "value", value, bareName };
}

/** Every FINAL marker of a reply, in order: each is read from its line up to the next marker. */
export function findFinalMarkers(text: string): FinalMarker[] {
  const lines = proseOf(text).split("\n");
  const starts = lines.flatMap((l, i) => (/^\s*(?:\*\*)?FINAL(?:_VAR)?\(/.test(l) ? [i] : []));
  return starts.flatMap((start, k) => {
    const marker = findFinalMarker(lines.slice(start, starts[k + 1] ?? lines.length).join("\n"));
    return marker ? [marker] : [];
  });
}

/** Python code that does what FINAL_VAR("name") = expression meant. */
export function assignmentAsCode(marker: Extract<FinalMarker, { kind: "assignment" }>): string {
  return `${marker.name} = ${marker.expression}\nFINAL_VAR(${JSON.stringify(marker.name)})`;
}

// --- FINAL(x): the variable x, or the word x? -----------------------------------------------------
// Decided in one place, Python's `FINAL.by_name` (workers/python/rlm_runtime/helpers.py): a text
// FINAL(x) with a bare name is run as the cell `FINAL(x)`, so text and code mean the same: the
// variable's value when x is one, otherwise the word x — except a name that only looks like a
// variable (result, answer…) or that a cell assigned, which is reported as missing.

// --- answers that are not answers (M03g) ------------------------------------------------------------

export type RefusedFinal = "empty" | "placeholder" | "plan";

const PLACEHOLDERS = new Set([
  "think",
  "thinking",
  "todo",
  "tbd",
  "...",
  "…",
  "none",
  "null",
  "undefined",
  "n/a",
  "answer",
  "the answer",
  "your answer",
  "final answer",
  "your final answer",
  "your best answer",
  "your best answer to the question",
  "<answer>",
  "[answer]",
  "answer here",
  "your answer here",
  "unknown",
  "?",
]);

const PLAN_START =
  /^(?:i will|i'll|i am going to|i'm going to|let me|let's|i need to|i should|i must|we need to|we should|we will|first,|first i|next,|next i|now i|then i|to (?:answer|find|solve|do) this|my plan|plan:|step 1)/i;
// The harness's own vocabulary: a reply that names these is talking about the work, not giving
// its result. A code fence alone is not a plan: answers about code quote it.
const PLAN_MENTION = /\bllm_query\b|\bFINAL_VAR\b|```repl\b|\bcontext\[|\brepl block\b/i;

/** Why a submitted text is not an answer, or null when it is one. */
export function refuseFinal(value: string): RefusedFinal | null {
  const v = value.trim();
  if (!v || /^(?:""|''|``|\(\))$/.test(v)) return "empty";
  const key = v.toLowerCase();
  if (/^[.…?]+$/.test(v) || PLACEHOLDERS.has(key) || PLACEHOLDERS.has(key.replace(/[.!:]+$/, ""))) return "placeholder";
  if (PLAN_START.test(v) || PLAN_MENTION.test(v)) return "plan";
  return null;
}

// --- M04: a text FINAL next to code -----------------------------------------------------------------

export interface CellOutcome {
  stdout: string;
  stderr: string;
  error: string | null;
}

export type FinalWithCodeDecision = { accept: true } | { accept: false; why: "code-failed" | "not-in-output" };

/**
 * A FINAL written in the same reply as code was written before the output existed (M04). The
 * code runs first; the FINAL stands only if every cell succeeded and its value shows in the
 * fresh output (so it was not a guess). A variable marker needs only success: it names
 * computed data. Either way the loop must say what it did (never drop it silently).
 */
export function judgeFinalWithCode(marker: FinalMarker, cells: readonly CellOutcome[]): FinalWithCodeDecision {
  if (cells.some((c) => c.error !== null)) return { accept: false, why: "code-failed" };
  if (marker.kind !== "value" || marker.bareName !== null) return { accept: true };
  const output = cells.map((c) => c.stdout).join("\n");
  return mentions(output, marker.value) ? { accept: true } : { accept: false, why: "not-in-output" };
}

const squash = (s: string) =>
  s
    .toLowerCase()
    .replace(/[\s,_'"`*]+/g, " ")
    .trim();

/** Whether `text` mentions `answer` (case, spacing, quotes and thousands separators ignored). */
export function mentions(text: string, answer: string): boolean {
  const a = squash(answer);
  if (!a) return false;
  const t = squash(text);
  if (t.includes(a)) return true;
  // "1,234" vs "1234": compare digits-only forms of numbers.
  const digits = (s: string) => s.replace(/(\d)[ ,](?=\d{3}\b)/g, "$1");
  return digits(t).includes(digits(a));
}

// --- M15: tidying an accepted answer -----------------------------------------------------------------

/**
 * Removes what is not the answer: surrounding quotes, code ticks and bold, and an "Answer:" /
 * "Final answer:" label — unless the question itself asks for an answer in the form
 * "Answer: …" (OOLONG does), in which case the label is part of the expected form.
 */
export function normaliseAnswer(value: string, question = ""): string {
  let v = value.trim();
  const wantsLabel = /form ['"]?answer:/i.test(question);
  for (let i = 0; i < 3; i++) {
    const before = v;
    v = v.replace(/^\*\*([\s\S]*)\*\*$/, "$1").trim();
    v = unquote(v);
    if (!wantsLabel) v = v.replace(/^(?:\*\*)?(?:final answer|answer)\s*(?:\*\*)?\s*:\s*(?:\*\*)?/i, "").trim();
    if (v === before) break;
  }
  return v;
}
