// A cell's result on its way out of the worker: cut to the host's limit before it crosses (the
// page cuts again itself), or replaced by an error the page shows when it cannot be read.
import { FINAL_ANSWER_MAX_CHARS, capText, maxCellResultChars } from "../../src/repl/protocol.ts";
import { groupDigits } from "../../src/core/numbers.ts";

// Taken when the worker's modules load, before any Python runs: a cell can replace JSON.parse on
// the global, not these.
const parseJson = JSON.parse;
const toJson = JSON.stringify;

/** A first cut before the result crosses to the page (the page cuts again itself). */
export function capForHost(raw: string, outputCap: number): string {
  return raw.length > maxCellResultChars(outputCap) ? cutResult(raw, outputCap) : raw;
}

/**
 * A result over the size limit (Python's own cap was patched away): each field is cut to the
 * cap, so the cell's answer and the session survive; only what cannot be read is dropped.
 */
function cutResult(raw: string, outputCap: number): string {
  let v: Record<string, unknown>;
  try {
    v = parseJson(raw) as Record<string, unknown>;
  } catch {
    return droppedResult(raw.length);
  }
  const text = (x: unknown, cap: number) => (typeof x === "string" ? capText(x, cap) : x);
  return toJson({
    ...v,
    stdout: text(v.stdout, outputCap),
    stderr: text(v.stderr, outputCap),
    final_answer: text(v.final_answer, FINAL_ANSWER_MAX_CHARS),
    locals: {},
  });
}

/** A cell result that is not text, or cannot be read: replaced by an error the page shows. */
export function droppedResult(length: number): string {
  const what = length < 0 ? "was not text" : `was ${groupDigits(length)} characters, over the limit`;
  return JSON.stringify({
    stdout: "",
    stderr: `ProtocolError: the cell's result ${what}, so it was dropped. Print less.\n`,
    final_answer: null,
    locals: {},
    execution_time: 0,
    error: "ProtocolError",
    interrupted: false,
  });
}
