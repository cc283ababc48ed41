// A turn as the page showed it, turned into a trajectory record: for turns that never got a
// record of their own (a run cut off by a reload, a model call that failed), so the stored steps
// stay one form (turn-view.ts derives the view back), and for the store's v3 migration, which
// folds what only the old stored view kept into each finished turn's record.
import { emptyCellResult } from "./cell-result.ts";
import { blockRecord, subcallRecord } from "./records.ts";
import type { CellView, SubcallView, TurnView } from "./turn-view.ts";
import type { CodeBlockRecord, IterationRecord, SubcallRecord } from "./types.ts";

/** The root turns shown that no record stands for, as records (RunSteps.unfinished). */
export function unrecordedTurns(turns: readonly TurnView[], iterations: readonly IterationRecord[]): IterationRecord[] {
  const recorded = new Set(iterations.map((it) => it.iteration));
  return turns.filter((t) => !recorded.has(t.index + 1)).map((t) => recordOfTurn(t));
}

/**
 * `turn` as a record: `record` (the turn's own, when it has one) with what the view showed
 * besides it, else a record of what the view showed (no prompt: it was never kept apart).
 */
export function recordOfTurn(turn: TurnView, record?: IterationRecord): IterationRecord {
  const base: IterationRecord = record ?? {
    type: "iteration",
    iteration: turn.index + 1,
    timestamp: new Date(turn.startedAt ?? 0).toISOString(),
    prompt: [],
    response: turn.text,
    code_blocks: turn.cells.map(blockOfCell),
    final_answer: null,
    iteration_time: null,
  };
  const { usage, durationMs, notices } = turn;
  return {
    ...base,
    code_blocks: record ? recordedCells(record.code_blocks, turn.cells) : base.code_blocks,
    ...(usage ? { usage: { prompt_tokens: usage.promptTokens, completion_tokens: usage.completionTokens } } : {}),
    ...(turn.done && durationMs !== undefined ? { generation_time: durationMs / 1000 } : {}),
    ...(notices.length ? { notices: [...notices] } : {}),
  };
}

/** The record's cells with what the view showed of each, and any cell the view showed that the record lacks. */
function recordedCells(blocks: readonly CodeBlockRecord[], cells: readonly CellView[]): CodeBlockRecord[] {
  return [...blocks.map((block, i) => withCellFacts(block, cells[i])), ...cells.slice(blocks.length).map(blockOfCell)];
}

/** A recorded cell with what the view knew besides: the exception, the interruption, which sub-calls were rlm_query. */
function withCellFacts(block: CodeBlockRecord, cell: CellView | undefined): CodeBlockRecord {
  if (!cell) return block;
  const calls = block.result.rlm_calls.map((call, i) => withCallFacts(call, cell.subcalls[i]));
  const again = cell.result ? blockRecord(block.code, cell.result, calls) : block;
  return { code: block.code, result: { ...block.result, ...again.result, rlm_calls: calls } };
}

function withCallFacts(call: SubcallRecord, shown: SubcallView | undefined): SubcallRecord {
  if (!shown) return call;
  const child = call.metadata;
  const iterations = child?.iterations.map((it, i) => (shown.child[i] ? recordOfTurn(shown.child[i]!, it) : it));
  return {
    ...call,
    ...(shown.kind === "rlm" ? { kind: "rlm" as const } : {}),
    ...(child && iterations ? { metadata: { ...child, iterations } } : {}),
  };
}

/** A cell shown without a record. One still running when the run was cut off is recorded as interrupted. */
function blockOfCell(cell: CellView): CodeBlockRecord {
  return blockRecord(cell.code, cell.result ?? emptyCellResult({ interrupted: true }), cell.subcalls.map(callOfSubcall));
}

/**
 * A sub-call shown without a record. One still waiting for its reply is recorded as failed (the
 * run it belonged to is over); a child run's turns are not kept here (no record of that run exists).
 */
function callOfSubcall(call: SubcallView): SubcallRecord {
  const usage = call.usage ?? { promptTokens: 0, completionTokens: 0 };
  const error = call.error ?? (call.response === undefined ? "The run was cut off before this call was answered." : undefined);
  return subcallRecord(call.model, call.prompt, call.response ?? "", usage, call.durationMs ?? 0, {
    ...(call.kind === "rlm" ? { kind: "rlm" as const } : {}),
    ...(error ? { error } : {}),
  });
}
