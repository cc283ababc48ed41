// The one cell result that printed nothing and raised nothing: the base for the results the core
// makes up itself (a cell cut off by Stop or a reload, the fallback's step, a replayed turn), so a
// field added to CellResult is given its empty value in one place.
import type { CellResult } from "../repl/protocol.ts";

/** A cell's result that printed nothing and raised nothing, with `over` in place. */
export function emptyCellResult(over: Partial<CellResult> = {}): CellResult {
  return {
    stdout: "",
    stderr: "",
    final_answer: null,
    locals: {},
    execution_time: 0,
    error: null,
    interrupted: false,
    ...over,
  };
}
