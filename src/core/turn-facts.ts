// What a turn's trajectory record keeps of the turn besides the visualizer's fields: the reply's
// tokens and time, and the window's compactions. The record is the only stored form of a run's
// steps (the page derives what it shows from it: src/core/turn-view.ts), so what the page shows
// of a finished turn must be in its record. Every way of taking a turn (the loop, a direct
// answer, the fallback, a child run) reports these as events, so they are gathered here, once,
// from the events, rather than threaded through each of them.
import { compactionNote } from "./turn-view.ts";
import type { IterationRecord, RlmEvent, RlmEventListener } from "./types.ts";

interface TurnFacts {
  usage?: IterationRecord["usage"];
  generationTime?: number;
  notices: string[];
}

/** The run an event belongs to: the root, or a child run under its sub-call. */
const runKey = (event: RlmEvent) => `${event.depth}:${event.parentSubcallId ?? ""}`;

/**
 * A listener that writes each turn's facts into its record when the record is announced (the
 * "iteration" event, after the turn's reply and cells), then passes every event on unchanged.
 */
export function withTurnFacts(listener?: RlmEventListener): RlmEventListener {
  const open = new Map<string, TurnFacts>();
  const factsOf = (event: RlmEvent) => {
    const key = runKey(event);
    let facts = open.get(key);
    if (!facts) open.set(key, (facts = { notices: [] }));
    return facts;
  };
  return (event) => {
    if (event.type === "turn-started") open.set(runKey(event), { notices: [] });
    else if (event.type === "history-compacted") factsOf(event).notices.push(compactionNote(event.droppedTurns));
    else if (event.type === "turn-finished") {
      const facts = factsOf(event);
      facts.usage = { prompt_tokens: event.usage.promptTokens, completion_tokens: event.usage.completionTokens };
      facts.generationTime = event.durationMs / 1000;
    } else if (event.type === "iteration") {
      const facts = open.get(runKey(event));
      open.delete(runKey(event));
      if (facts) writeFacts(event.record, facts);
    }
    listener?.(event);
  };
}

function writeFacts(record: IterationRecord, facts: TurnFacts): void {
  if (facts.usage) record.usage = facts.usage;
  if (facts.generationTime !== undefined) record.generation_time = facts.generationTime;
  if (facts.notices.length) record.notices = facts.notices;
}
