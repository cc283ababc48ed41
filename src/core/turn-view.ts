// What the page shows of a run's steps, derived from the run's trajectory records: those are the
// only stored form of the steps (src/store/schema.ts), and the page folds live events into the
// same shapes while a run goes (src/app/run-view.ts). The records keep what the view needs
// besides the visualizer's fields (turn-facts.ts, records.ts), so a reopened run shows what the
// live one did. Pure data, no DOM.
import type { ChatUsage } from "../engines/types.ts";
import type { CellResult } from "../repl/protocol.ts";
import type { CodeBlockRecord, IterationRecord, SubcallRecord } from "./types.ts";

export interface SubcallView {
  id: string;
  kind: "llm" | "rlm";
  model: string;
  prompt: string;
  response?: string;
  error?: string;
  durationMs?: number;
  usage?: ChatUsage;
  /** Turns of the child RLM that an rlm_query started. */
  child: TurnView[];
}

export interface CellView {
  index: number;
  code: string;
  result?: CellResult;
  subcalls: SubcallView[];
}

export interface TurnView {
  index: number;
  /** The model's reply, streamed in as it is written. */
  text: string;
  done: boolean;
  usage?: ChatUsage;
  durationMs?: number;
  cells: CellView[];
  notices: string[];
  /** While it runs: when it started, when its first token came, and how many pieces have streamed (≈ tokens). */
  startedAt?: number;
  firstTokenAt?: number;
  tokens?: number;
}

/** A run's stored steps: its finished turns' records, and those of turns that never finished. */
export interface RunSteps {
  iterations: IterationRecord[];
  /**
   * Turns that got no record because they never finished (the page was reloaded, or the model's
   * call failed): what they had shown, as records. Shown, never exported or continued from.
   */
  unfinished?: IterationRecord[];
}

/** The note shown under a turn in which older turns were dropped to fit the model's window. */
export function compactionNote(droppedTurns: number): string {
  return `Older turns were dropped to fit the model's window (${droppedTurns} so far); their variables remain.`;
}

/** The turns to show for a run's stored steps. */
export function turnsOf(steps: RunSteps): TurnView[] {
  const finished = steps.iterations.map((record) => turnOf(record, true, ""));
  // An unfinished turn's reply was done when the model's time for it was noted (turn-finished).
  const cut = (steps.unfinished ?? []).map((record, i) => turnOf(record, record.generation_time !== undefined, `u${i}`));
  return [...finished, ...cut].sort((a, b) => a.index - b.index);
}

/** One turn from its record; `path` makes its sub-calls' ids unique in the run. */
function turnOf(record: IterationRecord, done: boolean, path: string): TurnView {
  const index = record.iteration - 1;
  const at = `${path}t${index}`;
  const startedAt = Date.parse(record.timestamp);
  const usage = record.usage;
  return {
    index,
    text: record.response,
    done,
    ...(usage ? { usage: { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens } } : {}),
    ...(record.generation_time !== undefined ? { durationMs: record.generation_time * 1000 } : {}),
    cells: record.code_blocks.map((block, i) => cellOf(block, i, `${at}c${i}`)),
    notices: [...(record.notices ?? [])],
    ...(Number.isFinite(startedAt) ? { startedAt } : {}),
  };
}

function cellOf(block: CodeBlockRecord, index: number, path: string): CellView {
  const { rlm_calls, error, interrupted, ...rest } = block.result;
  return {
    index,
    code: block.code,
    result: { ...rest, error: error ?? null, interrupted: !!interrupted },
    subcalls: rlm_calls.map((call, i) => subcallOf(call, `${path}s${i}`)),
  };
}

function subcallOf(call: SubcallRecord, id: string): SubcallView {
  return {
    id,
    kind: call.kind ?? "llm",
    model: call.root_model,
    prompt: call.prompt,
    response: call.response,
    ...(call.error ? { error: call.error } : {}),
    durationMs: call.execution_time * 1000,
    usage: { promptTokens: call.prompt_tokens, completionTokens: call.completion_tokens },
    child: (call.metadata?.iterations ?? []).map((record) => turnOf(record, true, `${id}.`)),
  };
}
