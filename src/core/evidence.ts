// An answer's sources: the passages of the documents the run read, merged and ranked so the
// ones that produced the answer come first. Python records the raw reads (what cells printed,
// what sub-call prompts quoted, regex matches, cite() calls, and where the answer appears in all
// that); this module only ranks them, so it is pure and runs the same for the page and the CLI.
import type { Passage, SourceKind, SourceRange } from "../repl/protocol.ts";
import type { Repl } from "../repl/types.ts";
import type { IterationRecord } from "./types.ts";
import { groupDigits } from "./numbers.ts";

/** Why a source ranks where it does. */
export type SourceReason =
  /** The answer's words appear in this passage. */
  | "answer-here"
  /** A sub-call read this passage and its reply gave the answer. */
  | "subcall-answered"
  /** The model cited it with cite(). */
  | "cited"
  /** The answer names this document (e.g. "which file defines …"). */
  | "document-named"
  /** The cell that submitted the answer read it. */
  | "final-cell";

/** Character range with its line numbers (and page or paragraph). */
export type Place = Omit<SourceRange, "kind" | "score">;

export interface RankedSource extends Place {
  /** start/end/line… above are the focus: the most telling read among those merged here. */
  extent: { start: number; end: number; line: number; end_line: number };
  /** Every way the merged reads were made. */
  kinds: SourceKind[];
  reasons: SourceReason[];
  score: number;
  /** The focus's text with the rest of its lines, when the REPL could still quote it. */
  passage?: Passage;
}

/** One recorded read, with what the run knew about it. */
export interface Read {
  range: SourceRange;
  /** 0-based root turn. */
  turn: number;
  /** Read by the cell that submitted the answer. */
  finalCell: boolean;
  /** For prompt ranges: the sub-call's reply. */
  reply?: string;
}

export const MAX_RANKED_SOURCES = 12;

const KIND_WEIGHT: Record<SourceKind, number> = { cite: 40, match: 12, prompt: 10, print: 8, answer: 0 };

const STOPWORDS = new Set(
  "the a an and or of to in on at for is was are were be been by with from as that this these those it its his her their there which what who whom when where answer final yes not".split(
    " ",
  ),
);

/** Every read a root run recorded, in order (child runs read their prompt, not the documents). */
export function collectReads(iterations: readonly IterationRecord[]): Read[] {
  const reads: Read[] = [];
  iterations.forEach((it, turn) => {
    for (const block of it.code_blocks) {
      const finalCell = block.result.final_answer !== null;
      for (const range of block.result.sources ?? []) reads.push({ range, turn, finalCell });
      for (const call of block.result.rlm_calls) {
        for (const range of call.sources ?? []) reads.push({ range, turn, finalCell, ...(call.error ? {} : { reply: call.response }) });
      }
    }
  });
  return reads;
}

function tokens(text: string): Map<string, number> {
  const weights = new Map<string, number>();
  for (const [token] of text.matchAll(/[\p{L}\p{N}][\p{L}\p{N}\-./@:]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu)) {
    const lower = token.toLowerCase();
    if (/\p{N}/u.test(token)) weights.set(lower, 3);
    else if (token.length >= 4 && !STOPWORDS.has(lower)) weights.set(lower, Math.max(weights.get(lower) ?? 0, 1));
  }
  return weights;
}

const squash = (s: string) => s.replace(/\s+/g, " ").trim().toLowerCase();

/**
 * How much of `answer` is in `text`, 0..1: 1 when one contains the other (a short reply the
 * answer repeats, or the answer quoted in a longer text), else the weighted share of the
 * answer's telling words (numbers count triple) found in the text.
 */
export function answerOverlap(answer: string, text: string): number {
  const a = squash(answer);
  const t = squash(text);
  if (!a || !t || t.startsWith("error:")) return 0;
  if (t.includes(a) || (t.length >= 2 && t.length <= 300 && a.includes(t))) return 1;
  const want = tokens(a);
  if (!want.size) return 0;
  const have = tokens(t);
  let total = 0;
  let found = 0;
  for (const [token, weight] of want) {
    total += weight;
    if (have.has(token)) found += weight;
  }
  return found / total;
}

function namesDocument(answer: string, doc: string): boolean {
  if (answer.includes(doc)) return true;
  const base = doc.slice(doc.lastIndexOf("/") + 1);
  return base.length >= 5 && base.includes(".") && answer.includes(base);
}

interface Scored {
  read: Read;
  reasons: SourceReason[];
  score: number;
}

/** A read's own score: what it says about the answer, then how it was made, then how late. */
export function scoreRead(read: Read, answer: string): Scored {
  const { range } = read;
  const reasons: SourceReason[] = [];
  let score = KIND_WEIGHT[range.kind] + read.turn * 0.1;
  if (range.kind === "answer") {
    reasons.push("answer-here");
    score += 100 * (range.score ?? 0.5);
  }
  if (range.kind === "prompt" && read.reply !== undefined && answer && answerOverlap(answer, read.reply) >= 0.5) {
    reasons.push("subcall-answered");
    score += 60;
  }
  if (range.kind === "cite") reasons.push("cited");
  if (answer && namesDocument(answer, range.doc)) {
    reasons.push("document-named");
    score += 20;
  }
  if (read.finalCell) {
    reasons.push("final-cell");
    score += 25;
  }
  return { read, reasons, score };
}

/** Reads of one document that overlap or touch, chained. */
function clusters(scored: Scored[]): Scored[][] {
  const byDoc = new Map<string, Scored[]>();
  for (const s of scored) {
    const list = byDoc.get(s.read.range.doc) ?? [];
    list.push(s);
    byDoc.set(s.read.range.doc, list);
  }
  const out: Scored[][] = [];
  for (const list of byDoc.values()) {
    list.sort((a, b) => a.read.range.start - b.read.range.start || b.read.range.end - a.read.range.end);
    let current: Scored[] = [];
    let end = -1;
    for (const s of list) {
      if (current.length && s.read.range.start > end) {
        out.push(current);
        current = [];
      }
      current.push(s);
      end = Math.max(end, s.read.range.end);
    }
    if (current.length) out.push(current);
  }
  return out;
}

const contains = (outer: SourceRange, inner: SourceRange) => outer.start <= inner.start && inner.end <= outer.end;
const length = (r: SourceRange) => r.end - r.start;
/** Between reads of equal score: where the answer was found, else the smaller. */
const preferred = (a: SourceRange, b: SourceRange) =>
  a.kind === "answer" ? b.kind !== "answer" || length(a) < length(b) : b.kind !== "answer" && length(a) < length(b);

/**
 * The read a merged source points at: the best-scoring one, where a read inside a better one
 * (a regex match inside the chunk whose sub-call answered) takes that score and, being
 * smaller, wins: the person is shown the line, not the 20,000-character chunk around it. A
 * read also carries the reasons of the reads around it.
 */
function focusOf(members: Scored[]): { focus: Scored; score: number; reasons: SourceReason[] } {
  const strongest = [...members].sort((a, b) => b.score - a.score).slice(0, 16);
  let best: { focus: Scored; score: number; reasons: SourceReason[] } | null = null;
  for (const m of members) {
    let score = m.score;
    const reasons = new Set(m.reasons);
    for (const s of strongest) {
      if (s !== m && contains(s.read.range, m.read.range)) {
        score = Math.max(score, s.score);
        for (const r of s.reasons) reasons.add(r);
      }
    }
    if (!best || score > best.score || (score === best.score && preferred(m.read.range, best.focus.read.range))) {
      best = { focus: m, score, reasons: [...reasons] };
    }
  }
  return best!;
}

function placeOf(range: SourceRange): Place {
  const { kind: _kind, score: _score, ...place } = range;
  return place;
}

function rankedFrom(members: Scored[]): RankedSource {
  const { focus, score, reasons } = focusOf(members);
  const first = members.reduce((a, b) => (b.read.range.start < a.read.range.start ? b : a));
  const last = members.reduce((a, b) => (b.read.range.end > a.read.range.end ? b : a));
  const kinds = [...new Set(members.map((m) => m.read.range.kind))];
  return {
    ...placeOf(focus.read.range),
    extent: { start: first.read.range.start, end: last.read.range.end, line: first.read.range.line, end_line: last.read.range.end_line },
    kinds,
    reasons,
    score: Math.round(score * 100) / 100,
  };
}

/**
 * The run's reads as sources: overlapping and adjacent reads of a document merged, each shown
 * by its most telling read, best first; at most `max`.
 */
export function rankSources(reads: readonly Read[], answer: string, max = MAX_RANKED_SOURCES): RankedSource[] {
  const scored = reads.map((r) => scoreRead(r, answer));
  return clusters(scored)
    .map(rankedFrom)
    .sort((a, b) => b.score - a.score || a.doc.localeCompare(b.doc) || a.start - b.start)
    .slice(0, max);
}

/** "book.txt · line 88,412", "report.pdf · p. 3", "notes.docx · ¶ 14": how a source is named. */
export function sourceLabel(source: Place): string {
  const name = source.doc.slice(source.doc.lastIndexOf("/") + 1) || source.doc;
  const n = groupDigits;
  if (source.page !== undefined) {
    const end = source.end_page !== undefined && source.end_page !== source.page ? `–${n(source.end_page)}` : "";
    return `${name} · p. ${n(source.page)}${end}`;
  }
  if (source.paragraph !== undefined) return `${name} · ¶ ${n(source.paragraph)}`;
  const end = source.end_line !== source.line ? `–${n(source.end_line)}` : "";
  return `${name} · line${end ? "s" : ""} ${n(source.line)}${end}`;
}

/** The reasons in words, for tooltips, exports and the CLI. */
export const REASON_TEXT: Record<SourceReason, string> = {
  "answer-here": "the answer appears here",
  "subcall-answered": "a sub-call read this and its reply gave the answer",
  cited: "the model cited it",
  "document-named": "the answer names this document",
  "final-cell": "read by the code that gave the answer",
};

type PassageReader = NonNullable<Repl["sourcePassages"]>;

const PASSAGE_TIMEOUT_MS = 5000;

/**
 * Sources with their text quoted, read from the REPL while it still holds the documents (so an
 * exported answer can quote them later without the documents). Without quotes when the REPL
 * cannot give them in time: the ranges alone still point at the passages.
 */
export async function withPassages(sources: RankedSource[], read: PassageReader | undefined): Promise<RankedSource[]> {
  if (!sources.length || !read) return sources;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), PASSAGE_TIMEOUT_MS);
  });
  try {
    const passages = await Promise.race([read(sources), timeout]);
    if (!passages) return sources;
    return sources.map((s, i) => (passages[i] ? { ...s, passage: passages[i]! } : s));
  } catch {
    return sources;
  } finally {
    clearTimeout(timer);
  }
}
