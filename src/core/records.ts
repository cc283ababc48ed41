// Building the visualizer-format records of a run (rlm-harness.md §4). Records are plain data
// that outlive the run (stored, exported), so they are built from copies, never live objects.
import type { ChatMessage } from "../engines/types.ts";
import type { CellResult } from "../repl/protocol.ts";
import type { CodeBlockRecord, IterationRecord, SubcallRecord } from "./types.ts";

export function iterationRecord(turn: number, startedAt: number, prompt: ChatMessage[], response: string): IterationRecord {
  return {
    type: "iteration",
    iteration: turn + 1,
    timestamp: new Date(startedAt).toISOString(),
    prompt,
    response,
    code_blocks: [],
    final_answer: null,
    iteration_time: null,
  };
}

export function blockRecord(code: string, result: CellResult, records: SubcallRecord[]): CodeBlockRecord {
  return {
    code,
    result: {
      stdout: result.stdout,
      stderr: result.stderr,
      locals: result.locals,
      execution_time: result.execution_time,
      rlm_calls: records,
      final_answer: result.final_answer,
      ...(result.sources?.length ? { sources: result.sources } : {}),
      ...(result.error ? { error: result.error } : {}),
      ...(result.interrupted ? { interrupted: true as const } : {}),
    },
  };
}

export function subcallRecord(
  label: string,
  prompt: string,
  response: string,
  usage: { promptTokens: number; completionTokens: number },
  ms: number,
  extra: Partial<SubcallRecord>,
): SubcallRecord {
  return {
    root_model: label,
    prompt,
    response,
    usage_summary: {
      model_usage_summaries: {
        [label]: { total_calls: 1, total_input_tokens: usage.promptTokens, total_output_tokens: usage.completionTokens },
      },
    },
    execution_time: ms / 1000,
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    ...extra,
  };
}
