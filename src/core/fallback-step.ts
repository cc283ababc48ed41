// The loop's side of the fallback (fallback.ts): when the root cannot drive the run, the harness
// reads `context` itself. This runs that map-reduce through the run's own sub-call path, so each
// call is counted against the budget, memoised, recorded and shown like an llm_query, and turns
// it into one step of the trajectory: a turn the harness took, with one "cell" that holds the
// sub-calls (each with the ranges of `context` it carried, for citations).
import type { CellResult } from "../repl/protocol.ts";
import { emptyCellResult } from "./cell-result.ts";
import type { Budgets } from "./budgets.ts";
import type { FallbackDecision, FallbackEstimate } from "./fallback-cost.ts";
import { runFallback, type FallbackPlan, type FallbackResult } from "./fallback.ts";
import { blockRecord, iterationRecord } from "./records.ts";
import { placeRanges, type ProbeRepl } from "./repl-probes.ts";
import type { Emit, SubcallRouter } from "./subcalls.ts";
import type { FallbackSummary, IterationRecord, SubcallRecord } from "./types.ts";

export interface FallbackStepInput {
  /** The turn number the step takes in the trajectory. */
  turn: number;
  /** Why the harness takes over (the diagnosis): kept in the step's record, said once by the answer. */
  why: string;
  question: string;
  repl: ProbeRepl;
  /** The pieces to read, planned (and their cost allowed) before the step. */
  plan: FallbackPlan;
  router: SubcallRouter;
  budgets: Budgets;
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

/**
 * What the trajectory shows as this step's code: what the harness does, in Python's words. Why
 * it took over is said once, by the answer (and kept in the record's `fallback.reason`): the
 * step, a notice and the answer saying it three times was issue 28's noise.
 */
const CODE = [
  "# The harness reads `context` itself:",
  "# for each part, llm_query(part + question); then one call combines the answers.",
].join("\n");

/** The step's text: what is read, streamed at its start (the page's step and `rlm --verbose` show it). */
function response(plan: FallbackPlan): string {
  const { refs, chunksTotal } = plan;
  const which =
    refs.length < chunksTotal
      ? `the ${refs.length} most relevant of the document's ${chunksTotal} parts`
      : refs.length === 1
        ? "the whole document"
        : `all ${refs.length} parts of the document`;
  return `The harness took over: it reads ${which} with the helper model, one call per part, then one call to combine what they hold.`;
}

function cellOf(result: FallbackResult | null, error: string | null, ms: number): CellResult {
  const stdout = result
    ? `Read ${result.chunksRead} of ${result.chunksTotal} parts; ${result.sources.length} held an answer.\n` +
      (result.answer ? `Answer: ${result.answer}\n` : "No part held an answer.\n")
    : "";
  return emptyCellResult({
    stdout,
    stderr: error ? `${error}\n` : "",
    final_answer: result?.answer || null,
    execution_time: ms / 1000,
    error: error ? "FallbackError" : null,
  });
}

/** Runs the fallback as one trajectory step. Never throws: a failure (or Stop) is in `error`. */
export async function fallbackStep(i: FallbackStepInput): Promise<FallbackStepResult> {
  const started = Date.now();
  const code = CODE;
  const text = response(i.plan);
  const records: SubcallRecord[] = [];
  i.emit({ type: "turn-started", turn: i.turn });
  i.emit({ type: "token", turn: i.turn, text });
  i.emit({ type: "turn-finished", turn: i.turn, response: text, usage: { promptTokens: 0, completionTokens: 0 }, durationMs: 0 });
  i.emit({ type: "cell-started", turn: i.turn, cell: 0, code });
  i.router.current = { turn: i.turn, cell: 0, records };
  let result: FallbackResult | null = null;
  let error: unknown = null;
  try {
    // Probes are worker calls of their own, answered one after another by the worker: the map
    // runs its sub-calls in parallel and its reads need no lock.
    const repl = i.repl;
    result = await runFallback(
      {
        repl,
        question: i.question,
        // Each piece is placed (lines, pages) so the answer's sources can point at it.
        subcall: async (prompt, refs) => i.router.ask(prompt, refs ? await placeRanges(repl, refs) : []),
        budgets: i.budgets,
        maxChunks: i.plan.refs.length,
        concurrency: i.concurrency,
        signal: i.signal,
      },
      i.plan,
    );
  } catch (err) {
    error = err;
  } finally {
    i.router.current = null;
  }
  const cell = cellOf(result, error === null ? null : error instanceof Error ? error.message : String(error), Date.now() - started);
  i.emit({ type: "cell-finished", turn: i.turn, cell: 0, result: cell });
  const record = iterationRecord(i.turn, started, [], text);
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

/** RlmResult.fallback: why, what was read (nothing, when it was not allowed), its estimate and how it was decided. */
export function fallbackSummary(
  why: string,
  result: FallbackResult | null,
  plan: FallbackPlan,
  judged: { estimate: FallbackEstimate; decision: FallbackDecision },
): FallbackSummary {
  const { calls, tokens, ms, endpoint } = judged.estimate;
  return {
    reason: why,
    chunksRead: result?.chunksRead ?? 0,
    chunksTotal: result?.chunksTotal ?? plan.chunksTotal,
    partial: result?.partial ?? plan.refs.length < plan.chunksTotal,
    estimate: { calls, tokens, ...(ms !== null ? { ms } : {}), endpoint: endpoint.name, local: endpoint.local },
    decision: judged.decision,
  };
}
