// Continuing a run that stopped, was cut off or ran out of turns: its turns become the root
// conversation again, so the model picks up where it was instead of starting over. Pure: the
// loop (loop.ts) replays what this builds; the session (session.ts) decides whether the
// worker still holds the run's variables.
import type { CellResult } from "../repl/protocol.ts";
import { emptyCellResult } from "./cell-result.ts";
import { formatTurnOutput } from "./format.ts";
import type { IterationRecord } from "./types.ts";

export interface ResumedTurn {
  assistant: string;
  user: string;
}

/** What `RlmSession.ask` needs to continue a run: the earlier run's iterations. */
export interface ResumeRun {
  iterations: readonly IterationRecord[];
}

/** The earlier run's model turns (not the harness's own steps) as conversation turns. */
export function resumedTurns(iterations: readonly IterationRecord[], outputCharsPerCell: number, variablesKept: boolean): ResumedTurn[] {
  const turns = iterations
    .filter((it) => !it.fallback && !it.direct)
    .map((it) => ({ assistant: it.response.trim() || "(empty reply)", user: observed(it, outputCharsPerCell) }));
  const last = turns.at(-1);
  if (last) last.user = `${last.user}\n\n${resumeNote(variablesKept)}`;
  return turns;
}

/** What the model is told when the run goes on: where it is, and whether its variables survived. */
export function resumeNote(variablesKept: boolean): string {
  const variables = variablesKept
    ? "Your Python variables from these turns are still defined."
    : "Python was restarted since: your variables from these turns are gone (`context` is loaded again); recompute what you need.";
  return `The run was interrupted here and now continues. ${variables} Go on with the task and finish with FINAL(...) when you have the answer.`;
}

function observed(it: IterationRecord, outputCharsPerCell: number): string {
  if (!it.code_blocks.length) return "(no code ran in this turn)";
  const results: CellResult[] = it.code_blocks.map((b) =>
    emptyCellResult({
      stdout: b.result.stdout,
      stderr: b.result.stderr,
      final_answer: b.result.final_answer,
      locals: b.result.locals,
      execution_time: b.result.execution_time,
    }),
  );
  return formatTurnOutput(results, outputCharsPerCell, [], "");
}
