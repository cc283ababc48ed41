// The fallback that needs no cooperation from the root model (small-models.md M01, M09, M13;
// issue 13): when the root keeps writing prose, keeps repeating itself, or runs out of turns,
// the harness runs its own bounded map-reduce over `context` — pieces sized from the
// sub-model's window, one sub-call per piece with the question, then one combining call. The
// answer says it came from the fallback and which pieces (document, offsets) supported it, so
// the evidence work (issue 14) can turn them into citations.
import { EngineAbortedError } from "../engines/errors.ts";
import { Limiter } from "../engines/limiter.ts";
import type { Budgets } from "./budgets.ts";
import { contextLayout, rankChunks, readContext, type ChunkRef, type ProbeRepl } from "./repl-probes.ts";
import { NOT_FOUND, mapPrompt as mapQueryPrompt } from "./repl-vocabulary.ts";

export { NOT_FOUND };

export interface FallbackOptions {
  repl: ProbeRepl;
  question: string;
  /**
   * The loop's sub-call path: one prompt in, the reply out — counted against the sub-call
   * budget, recorded in the trajectory, memoised — exactly like llm_query. Failures come back
   * as "Error: …" strings, as they do for Python. `sources`: the pieces of `context` the prompt
   * carries (one for a map call, those merged for a combining call), for citations.
   */
  subcall: (prompt: string, sources?: readonly ChunkRef[]) => Promise<string>;
  budgets: Pick<Budgets, "chunkChars" | "subPromptChars">;
  /** Most pieces to read (each is a sub-call); the rest of a huge document is ranked out. */
  maxChunks: number;
  /** Sub-calls in flight at once (the sub engine's concurrency). Default 1. */
  concurrency?: number;
  signal?: AbortSignal;
  onEvent?: (event: FallbackEvent) => void;
}

export type FallbackEvent =
  | { type: "fallback-started"; chunks: number; totalChunks: number }
  | { type: "fallback-chunk"; index: number; ref: ChunkRef; answer: string; found: boolean }
  | { type: "fallback-combine"; partials: number; round: number };

export interface FallbackSource extends ChunkRef {
  /** What the sub-model found in this piece. */
  partialAnswer: string;
}

export interface FallbackResult {
  /** "" when no piece held an answer. */
  answer: string;
  producedBy: "fallback";
  /** The pieces whose partial answers went into the answer, in document order. */
  sources: FallbackSource[];
  chunksRead: number;
  /** Pieces the whole document has at this size. */
  chunksTotal: number;
  /** True when the document had more pieces than the bound (the most relevant were read). */
  partial: boolean;
  /** Sub-calls made (map and combine). */
  subcalls: number;
}

/** The question about one piece: map_query()'s own (repl-vocabulary.ts). */
export function mapPrompt(question: string, part: number, parts: number, ref: ChunkRef, text: string): string {
  return mapQueryPrompt({ part, parts, where: ref.doc === null ? "" : ` (${ref.doc})`, text, question });
}

export function combinePrompt(question: string, partials: ReadonlyArray<{ label: string; answer: string }>, final: boolean): string {
  const lines = partials.map((p, i) => `${i + 1}. (${p.label}) ${p.answer.replace(/\s+/g, " ").trim()}`);
  const task = final
    ? "Combine them into the final answer to the question. If they give counts, add them up. Reply with the answer only."
    : "Merge them into one answer that keeps every detail (add up counts). Reply with the merged answer only.";
  return `Question: ${question}\n\nAnswers found in different parts of the document:\n${lines.join("\n")}\n\n${task}`;
}

const isUseful = (answer: string) => {
  const a = answer.trim();
  return a !== "" && !a.toUpperCase().includes(NOT_FOUND) && !a.startsWith("Error:");
};

function checkAbort(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new EngineAbortedError();
}

const label = (ref: ChunkRef) => `${ref.doc === null ? "" : `${ref.doc}, `}chars ${ref.start}-${ref.end}`;

/** Map: every chosen piece read from the REPL and asked about, `concurrency` at a time. */
async function mapPieces(o: FallbackOptions, refs: ChunkRef[]): Promise<FallbackSource[]> {
  const limiter = new Limiter(Math.max(1, o.concurrency ?? 1));
  const answers = await Promise.all(
    refs.map((ref, i) =>
      limiter.run(async () => {
        checkAbort(o.signal);
        const text = await readContext(o.repl, ref);
        const answer = (await o.subcall(mapPrompt(o.question, i + 1, refs.length, ref, text), [ref])).trim();
        o.onEvent?.({ type: "fallback-chunk", index: i, ref, answer, found: isUseful(answer) });
        return { ...ref, partialAnswer: answer };
      }),
    ),
  );
  return answers.filter((a) => isUseful(a.partialAnswer));
}

/** A partial answer on its way to the combining call, with the pieces it came from. */
interface PartialAnswer {
  label: string;
  answer: string;
  refs: ChunkRef[];
}

/** Groups that each fit one combining prompt. */
function groupsThatFit(question: string, items: PartialAnswer[], maxChars: number): PartialAnswer[][] {
  const groups: PartialAnswer[][] = [[]];
  for (const item of items) {
    const current = groups[groups.length - 1]!;
    if (current.length && combinePrompt(question, [...current, item], true).length > maxChars) groups.push([item]);
    else current.push(item);
  }
  return groups;
}

/** Reduce: one combining call, or a few rounds of merging when the partials do not fit one. */
async function combine(o: FallbackOptions, sources: FallbackSource[]): Promise<{ answer: string; calls: number }> {
  let items: PartialAnswer[] = sources.map((s) => ({
    label: label(s),
    answer: s.partialAnswer,
    refs: [{ doc: s.doc, start: s.start, end: s.end }],
  }));
  const refsOf = (group: PartialAnswer[]) => group.flatMap((p) => p.refs);
  let calls = 0;
  for (let round = 1; round <= 3; round++) {
    checkAbort(o.signal);
    const groups = groupsThatFit(o.question, items, o.budgets.subPromptChars);
    o.onEvent?.({ type: "fallback-combine", partials: items.length, round });
    if (groups.length === 1) {
      calls += 1;
      return { answer: (await o.subcall(combinePrompt(o.question, groups[0]!, true), refsOf(groups[0]!))).trim(), calls };
    }
    const merged = await Promise.all(groups.map((g) => o.subcall(combinePrompt(o.question, g, false), refsOf(g))));
    calls += groups.length;
    items = merged.map((answer, i) => ({ label: `merged group ${i + 1}`, answer, refs: refsOf(groups[i]!) }));
  }
  return { answer: items.map((i) => i.answer).join("\n"), calls };
}

/**
 * What a reading would cover, found before anything is spent (two quick probes, no model call):
 * the pieces to read, most relevant first when there are more than `maxChunks`, and how many the
 * whole document has. The cost estimate (fallback-cost.ts) and the question to the person are
 * made from it, and `runFallback` reads exactly these pieces.
 */
export interface FallbackPlan {
  refs: ChunkRef[];
  /** Pieces the whole document has at this size. */
  chunksTotal: number;
}

export async function planFallback(
  o: Pick<FallbackOptions, "repl" | "question" | "budgets" | "maxChunks" | "signal">,
): Promise<FallbackPlan> {
  checkAbort(o.signal);
  const layout = await contextLayout(o.repl);
  const refs = await rankChunks(o.repl, o.question, o.budgets.chunkChars, Math.max(1, o.maxChunks));
  // Pieces end at a line break near the limit, so a document can have a piece or two more than
  // this estimate; when every piece was read, their count is the total.
  const estimate = layout.reduce((n, d) => n + Math.max(1, Math.ceil(d.length / o.budgets.chunkChars)), 0);
  return { refs, chunksTotal: Math.max(estimate, refs.length) };
}

/** Reads the plan's pieces (or plans first) and combines what they hold. */
export async function runFallback(o: FallbackOptions, plan?: FallbackPlan): Promise<FallbackResult> {
  const { refs, chunksTotal } = plan ?? (await planFallback(o));
  checkAbort(o.signal);
  o.onEvent?.({ type: "fallback-started", chunks: refs.length, totalChunks: chunksTotal });
  const sources = await mapPieces(o, refs);
  const base = { producedBy: "fallback" as const, chunksRead: refs.length, chunksTotal, partial: refs.length < chunksTotal };
  if (!sources.length) return { ...base, answer: "", sources: [], subcalls: refs.length };
  const { answer, calls } = await combine(o, sources);
  return { ...base, answer: isUseful(answer) ? answer : "", sources, subcalls: refs.length + calls };
}

/** Sub-call budget for a fallback: what is left, but at least one piece and the combine. */
export function fallbackChunkBudget(subcallsLeft: number, cap = 64): number {
  return Math.max(1, Math.min(cap, subcallsLeft - 2));
}
