// The harness's own questions to the REPL, asked without touching the model's namespace:
// "does this block parse as Python?", "what shape is `context`?", "give me characters a..b",
// "which pieces should a bounded map-reduce read?", the helpers' limits, and "where do these
// pieces lie?". Each is one typed probe call of the REPL worker (Repl.probe, ProbeRequest in
// src/repl/protocol.ts), answered by the runtime's probe() (workers/python/rlm_runtime/probes.py): not a
// cell, so no output cap cuts a read, no evidence is recorded, no trajectory entry is made.
import type { ContextRange, HelperLimits, LineCounts, Occurrence, SourceRange, SyntaxVerdict } from "../repl/protocol.ts";
import type { Repl } from "../repl/types.ts";
import type { Budgets } from "./budgets.ts";
import type { CodeBlock } from "./parse.ts";

export type { HelperLimits, SyntaxVerdict };

/** The part of a REPL the probes need (ReplClient has it). */
export type ProbeRepl = Pick<Repl, "probe">;

/** A piece of `context` (doc null: the plain-string `context`). */
export type ChunkRef = ContextRange;

// --- does it parse? -------------------------------------------------------------------------------

export type SyntaxChecker = (code: string) => Promise<SyntaxVerdict>;

/** Python's own parser, through the REPL: the only reliable judge of "is this Python". */
export function replSyntaxChecker(repl: ProbeRepl): SyntaxChecker {
  return (code) => repl.probe({ kind: "syntax", code });
}

export type PreparedBlock =
  | {
      action: "run";
      code: string;
      block: CodeBlock;
      /** Say this to the model after the run. */ note: "dropped-last-line" | null;
      dropped: string | null;
    }
  | { action: "skip"; block: CodeBlock; syntaxError: string };

/**
 * What to run for one runnable block (M06). "run" blocks run as they are, except an unclosed
 * one whose last line is cut off: it runs without that line when the rest parses. A
 * "run-if-python" block (```markdown, ```text…) runs only if it parses; otherwise it is skipped
 * and the model is told it was not Python. Refused blocks never reach here.
 */
export async function prepareBlock(block: CodeBlock, check: SyntaxChecker): Promise<PreparedBlock> {
  if (block.verdict === "refuse") return { action: "skip", block, syntaxError: `${block.language} is not Python` };
  if (block.verdict === "run" && !block.unclosed) return { action: "run", code: block.code, block, note: null, dropped: null };
  const verdict = await check(block.code);
  if (verdict.ok) return { action: "run", code: block.code, block, note: null, dropped: null };
  if (block.unclosed && verdict.trimmed !== null) {
    return { action: "run", code: verdict.trimmed, block, note: "dropped-last-line", dropped: verdict.dropped };
  }
  if (block.verdict === "run") return { action: "run", code: block.code, block, note: null, dropped: null }; // the REPL reports the error
  return { action: "skip", block, syntaxError: verdict.error };
}

// --- the helpers' limits ------------------------------------------------------------------------

/** map_query's limits from the sub-model's window and the run's sub-call budget. */
export function helperLimits(budgets: Budgets, maxSubcalls: number): HelperLimits {
  return { chunkChars: budgets.chunkChars, maxChunks: Math.max(1, Math.min(64, Math.floor(maxSubcalls / 4))) };
}

/**
 * Tells search() and map_query() the sub-model's limits. Call at the start of every run and
 * after the REPL was rebuilt (a restarted worker starts from the defaults, sized for 4K).
 */
export async function configureHelpers(repl: ProbeRepl, limits: HelperLimits): Promise<void> {
  await repl.probe({ kind: "configure", chunkChars: Math.floor(limits.chunkChars), maxChunks: Math.floor(limits.maxChunks) });
}

// --- reading `context` for the harness ---------------------------------------------------------------

export interface DocumentLength {
  /** null for a plain-string `context`; the key (or index) of a document otherwise. */
  doc: string | null;
  length: number;
}

export function contextLayout(repl: ProbeRepl): Promise<DocumentLength[]> {
  return repl.probe({ kind: "layout" });
}

/**
 * Pieces of `context` the harness read itself, as document passages with their lines (kind
 * "prompt"), so an answer the fallback wrote has sources like any other. Nothing when the REPL
 * cannot say: sources are a help, never a reason for the answer to fail.
 */
export async function placeRanges(repl: ProbeRepl, refs: readonly ChunkRef[]): Promise<SourceRange[]> {
  if (!refs.length) return [];
  try {
    return await repl.probe({ kind: "place", ranges: refs.map((r) => ({ doc: r.doc, start: r.start, end: r.end })) });
  } catch {
    return [];
  }
}

/** Characters [start, end) of one document of `context` (Python's characters: code points). */
export function readContext(repl: ProbeRepl, ref: ChunkRef): Promise<string> {
  return repl.probe({ kind: "read", doc: ref.doc, start: ref.start, end: ref.end });
}

/** The pieces a bounded map-reduce should read: all, or the `maxChunks` most relevant. */
export function rankChunks(repl: ProbeRepl, question: string, chunkChars: number, maxChunks: number): Promise<ChunkRef[]> {
  return repl.probe({ kind: "rank", question, chunkChars: Math.floor(chunkChars), maxChunks: Math.floor(maxChunks) });
}

// --- the document as evidence (issue 36 §1-3) -----------------------------------------------------

/** What a turn asks about the document: a pattern's lines, an answer's occurrence. Null when the REPL cannot say. */
export function documentProbes(repl: ProbeRepl): {
  lines(pattern: { pattern: string; regex: boolean } | null): Promise<LineCounts | null>;
  occurs(text: string): Promise<Occurrence | null>;
} {
  return {
    lines: (pattern) => repl.probe({ kind: "lines", pattern: pattern?.pattern ?? null, regex: pattern?.regex ?? false }).catch(() => null),
    occurs: (text) => repl.probe({ kind: "occurs", text }).catch(() => null),
  };
}
