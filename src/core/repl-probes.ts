// The harness's own questions to the REPL, asked without touching the model's namespace:
// "does this block parse as Python?", "what shape is `context`?", "give me characters a..b",
// "which pieces should a bounded map-reduce read?", and the helpers' limits. Each is one cell
// calling a function of the runtime's `_rlm_probe` module (workers/python/rlm_runtime.py);
// nothing is bound in the namespace and nothing enters the trajectory unless the caller adds it.
// Why cells and not new worker methods: the REPL worker's protocol stays as it is, and a
// restarted worker answers the same way.
import { MAX_PROMPT_SOURCES, validSources, type SourceRange } from "../repl/protocol.ts";
import type { CellResult, RunCellOptions } from "../repl/types.ts";
import type { Budgets } from "./budgets.ts";
import type { CodeBlock } from "./parse.ts";

/** The part of a REPL the probes need (ReplClient has it). */
export interface ProbeRepl {
  runCell(code: string, options?: RunCellOptions): Promise<CellResult>;
}

export class ReplProbeError extends Error {
  override name = "ReplProbeError";
  constructor(what: string, detail: string) {
    super(
      `The harness could not ${what} in the Python REPL (${detail.trim().split("\n").pop() ?? detail}). If this repeats, restart the session.`,
    );
  }
}

const PROBE_TIMEOUT_MS = 30_000;

/** A Python string literal for any text (JSON's escapes are valid Python escapes). */
const py = (value: string | number | null) => (value === null ? "None" : JSON.stringify(value));

async function probe(repl: ProbeRepl, what: string, call: string): Promise<string> {
  const result = await repl.runCell(`print(__import__("_rlm_probe").${call}, end="")`, { timeoutMs: PROBE_TIMEOUT_MS });
  if (result.error) throw new ReplProbeError(what, result.stderr || result.error);
  return result.stdout;
}

// --- does it parse? -------------------------------------------------------------------------------

export type SyntaxVerdict =
  | { ok: true }
  | {
      ok: false;
      /** "SyntaxError: …" */
      error: string;
      line: number | null;
      /** The code without its last line, when that parses (a reply cut off mid-line). */
      trimmed: string | null;
      dropped: string | null;
    };

export type SyntaxChecker = (code: string) => Promise<SyntaxVerdict>;

/** Python's own parser, through the REPL: the only reliable judge of "is this Python". */
export function replSyntaxChecker(repl: ProbeRepl): SyntaxChecker {
  return async (code) => JSON.parse(await probe(repl, "check a block's syntax", `syntax(${py(code)})`)) as SyntaxVerdict;
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

export interface HelperLimits {
  /** Characters of `context` per map_query prompt. */
  chunkChars: number;
  /** Parts map_query may send in one call (each is a sub-call). */
  maxChunks: number;
}

/** map_query's limits from the sub-model's window and the run's sub-call budget. */
export function helperLimits(budgets: Budgets, maxSubcalls: number): HelperLimits {
  return { chunkChars: budgets.chunkChars, maxChunks: Math.max(1, Math.min(64, Math.floor(maxSubcalls / 4))) };
}

/**
 * Tells search() and map_query() the sub-model's limits. Call at the start of every run and
 * after the REPL was rebuilt (a restarted worker starts from the defaults, sized for 4K).
 */
export async function configureHelpers(repl: ProbeRepl, limits: HelperLimits): Promise<void> {
  const options = JSON.stringify({ chunk_chars: limits.chunkChars, max_chunks: limits.maxChunks });
  await probe(repl, "configure the helpers", `configure(${py(options)})`);
}

// --- reading `context` for the harness ---------------------------------------------------------------

export interface DocumentLength {
  /** null for a plain-string `context`; the key (or index) of a document otherwise. */
  doc: string | null;
  length: number;
}

export interface ChunkRef {
  doc: string | null;
  start: number;
  end: number;
}

export async function contextLayout(repl: ProbeRepl): Promise<DocumentLength[]> {
  const rows = JSON.parse(await probe(repl, "read the shape of `context`", "layout()")) as Array<[string | null, number]>;
  return rows.map(([doc, length]) => ({ doc, length }));
}

/**
 * Pieces of `context` the harness read itself, as document passages with their lines (kind
 * "prompt"), so an answer the fallback wrote has sources like any other. Nothing when the REPL
 * cannot say: sources are a help, never a reason for the answer to fail.
 */
export async function placeRanges(repl: ProbeRepl, refs: readonly ChunkRef[]): Promise<SourceRange[]> {
  if (!refs.length) return [];
  try {
    const refsJson = JSON.stringify(refs.map((r) => ({ doc: r.doc, start: r.start, end: r.end })));
    return validSources(JSON.parse(await probe(repl, "place the pieces it read", `place(${py(refsJson)})`)), MAX_PROMPT_SOURCES);
  } catch {
    return [];
  }
}

export async function readContext(repl: ProbeRepl, ref: ChunkRef): Promise<string> {
  return probe(repl, "read part of `context`", `read(${py(ref.doc)}, ${ref.start}, ${ref.end})`);
}

/** The pieces a bounded map-reduce should read: all, or the `maxChunks` most relevant. */
export async function rankChunks(repl: ProbeRepl, question: string, chunkChars: number, maxChunks: number): Promise<ChunkRef[]> {
  const rows = JSON.parse(
    await probe(repl, "choose parts of `context`", `rank(${py(question)}, ${Math.floor(chunkChars)}, ${Math.floor(maxChunks)})`),
  ) as Array<[string | null, number, number]>;
  return rows.map(([doc, start, end]) => ({ doc, start, end }));
}
