// rlm_query as a child RLM: the child gets a REPL of its own (lent, reset, its prompt as
// `context`), shares the parent's budget and clock, and runs one at a time. The run function is
// passed in so this module does not import the loop that uses it.
import type { ChatEngine } from "../engines/types.ts";
import type { RlmRunOptions } from "./run-options.ts";
import type { StopSignal } from "./stop.ts";
import type { ChildRunner, SharedRunState } from "./subcalls.ts";
import { runMetadata } from "./trajectory.ts";
import type { RlmResult, SubcallRecord } from "./types.ts";

export interface ChildParent {
  options: RlmRunOptions;
  depth: number;
  shared: SharedRunState;
  stop: StopSignal;
  subEngine: ChatEngine;
  run(options: RlmRunOptions): Promise<RlmResult>;
}

/** rlm_query starts a child RLM only when depth allows and someone provides child REPLs. */
export function childRunner(parent: ChildParent): ChildRunner | undefined {
  const { config, createChildRepl } = parent.options;
  if (parent.depth + 1 >= config.maxDepth || !createChildRepl) return undefined;
  return (prompt, id) => parent.shared.childLock.run(() => runChild(parent, prompt, id));
}

async function runChild(parent: ChildParent, prompt: string, id: string): Promise<{ text: string; record: Partial<SubcallRecord> }> {
  const { options, depth, shared, stop, subEngine } = parent;
  const child = await options.createChildRepl!();
  try {
    await child.repl.resetNamespace();
    await child.repl.setContextText(prompt);
    await child.repl.beginQuestion([]);
    const question = prompt.length <= 1000 ? prompt : `${prompt.slice(0, 1000)} … [the full task is in \`context\`]`;
    const result = await parent.run({
      ...options,
      question,
      repl: child.repl,
      previous: [],
      signal: stop.signal,
      internal: { depth: depth + 1, shared, parentSubcallId: id },
    });
    const why = result.message ? `: ${result.message}` : "";
    return {
      text: result.answer || `Error: the child RLM ended without an answer (${result.status}${why})`,
      record: { metadata: { run_metadata: runMetadata(options.rootEngine, subEngine, options.config), iterations: result.iterations } },
    };
  } finally {
    child.release();
  }
}
