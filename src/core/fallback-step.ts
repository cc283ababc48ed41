// The loop's side of the fallback (fallback.ts): when the root cannot drive the run, the harness
// reads `context` itself. This runs that map-reduce through the run's own sub-call path, so each
// call is counted against the budget, memoised, recorded and shown like an llm_query, and turns
// it into one step of the trajectory: a turn the harness took, with one "cell" that holds the
// sub-calls (each with the ranges of `context` it carried, for citations).
import type { CellResult } from "../repl/protocol.ts";
import type { Budgets } from "./budgets.ts";
import { fallbackChunkBudget, runFallback, type FallbackEvent, type FallbackResult } from "./fallback.ts";
import { blockRecord, iterationRecord } from "./records.ts";
import { placeRanges, type ProbeRepl } from "./repl-probes.ts";
import type { Emit, SubcallRouter } from "./subcalls.ts";
import type { FallbackSummary, IterationRecord, SubcallRecord } from "./types.ts";

export interface FallbackStepInput {
  /** The turn number the step takes in the trajectory. */
  turn: number;
  /** Why the harness takes over, in words for the person. */
  why: string;
  question: string;
  repl: ProbeRepl;
  router: SubcallRouter;
  budgets: Budgets;
  subcallsLeft: number;
  concurrency: number;
  signal: AbortSignal;
  emit: Emit;
}

export interface FallbackStepResult {
  /** The step as the trajectory keeps it (also when it failed or was stopped). */
  record: IterationRecord;
  /** Null when the map-reduce did not finish. */
  result: FallbackResult | null;
  /** Why it did not finish (Stop included), else null. */
  error: unknown;
}

/** What the trajectory shows as this step's code: what the harness did, in Python's words. */
function describe(why: string): string {
  return [
    `# The harness took over. ${why}`,
    "# For each part of `context`: llm_query(part + question); then one call combines the answers.",
  ].join("\n");
}

const response = (why: string) =>
  `The harness took over. ${why} It reads the document itself, one part at a time, and combines what the helper model finds.`;

function cellOf(result: FallbackResult | null, error: string | null, ms: number): CellResult {
  const stdout = result
    ? `Read ${result.chunksRead} of ${result.chunksTotal} parts; ${result.sources.length} held an answer.\n` +
      (result.answer ? `Answer: ${result.answer}\n` : "No part held an answer.\n")
    : "";
  return {
    stdout,
    stderr: error ? `${error}\n` : "",
    final_answer: result?.answer || null,
    locals: {},
    execution_time: ms / 1000,
    error: error ? "FallbackError" : null,
    interrupted: false,
  };
}

function announce(i: FallbackStepInput): (event: FallbackEvent) => void {
  return (event) => {
    if (event.type !== "fallback-started") return;
    const which =
      event.chunks < event.totalChunks
        ? `the ${event.chunks} most relevant of the document's ${event.totalChunks} parts`
        : event.chunks === 1
          ? "the whole document"
          : `all ${event.chunks} parts of the document`;
    i.emit({ type: "notice", message: `${i.why} The harness is reading ${which} with the helper model.` });
  };
}

/** Runs the fallback as one trajectory step. Never throws: a failure (or Stop) is in `error`. */
export async function fallbackStep(i: FallbackStepInput): Promise<FallbackStepResult> {
  const started = Date.now();
  const code = describe(i.why);
  const records: SubcallRecord[] = [];
  i.emit({ type: "turn-started", turn: i.turn });
  i.emit({
    type: "turn-finished",
    turn: i.turn,
    response: response(i.why),
    usage: { promptTokens: 0, completionTokens: 0 },
    durationMs: 0,
  });
  i.emit({ type: "cell-started", turn: i.turn, cell: 0, code });
  i.router.current = { turn: i.turn, cell: 0, records };
  let result: FallbackResult | null = null;
  let error: unknown = null;
  try {
    // Probes are worker calls of their own, answered one after another by the worker: the map
    // runs its sub-calls in parallel and its reads need no lock.
    const repl = i.repl;
    result = await runFallback({
      repl,
      question: i.question,
      // Each piece is placed (lines, pages) so the answer's sources can point at it.
      subcall: async (prompt, refs) => i.router.ask(prompt, refs ? await placeRanges(repl, refs) : []),
      budgets: i.budgets,
      maxChunks: fallbackChunkBudget(i.subcallsLeft),
      concurrency: i.concurrency,
      signal: i.signal,
      onEvent: announce(i),
    });
  } catch (err) {
    error = err;
  } finally {
    i.router.current = null;
  }
  const cell = cellOf(result, error === null ? null : error instanceof Error ? error.message : String(error), Date.now() - started);
  i.emit({ type: "cell-finished", turn: i.turn, cell: 0, result: cell });
  const record = iterationRecord(i.turn, started, [], response(i.why));
  record.code_blocks.push(blockRecord(code, cell, records));
  record.final_answer = result?.answer || null;
  record.iteration_time = (Date.now() - started) / 1000;
  record.fallback = {
    reason: i.why,
    chunks_read: result?.chunksRead ?? 0,
    chunks_total: result?.chunksTotal ?? 0,
    partial: result?.partial ?? false,
  };
  i.emit({ type: "iteration", record });
  return { record, result, error };
}

/** The result's summary for RlmResult.fallback. */
export function fallbackSummary(why: string, result: FallbackResult): FallbackSummary {
  return { reason: why, chunksRead: result.chunksRead, chunksTotal: result.chunksTotal, partial: result.partial };
}
