// No escalation was the failure (issue 36 §4): the same reminder after every turn with no code,
// turn after turn. The second such turn in a run changes what the model is sent — whatever went
// wrong (prose, an empty reply, a refusal, a tool call, a shell block): a short prompt that shows
// the one allowed form, a line to copy. The third hands the run to the fallback (NoActionCounter).
// The trajectory says which, so a reader sees that the harness changed course and why.
import { messageForInaction, oneLineExample, type TaskFacts } from "./feedback.ts";
import { pythonForBlock, pythonForTool } from "./python-equivalent.ts";
import type { ReplyAnalysis } from "./reply.ts";

export interface InactionReply {
  message: string;
  /** For the trajectory, when the harness changed what it sends. */
  check: string | null;
}

/** The one line the model should copy: the Python its command meant, else a search for the question's word. */
function lineToCopy(facts: TaskFacts, reply: ReplyAnalysis): string {
  const fromBlock = reply.refused.map((b) => pythonForBlock(b.language, b.code, facts.helpers)).find((p) => p !== null);
  const fromTool = reply.foreign ? pythonForTool(reply.foreign.name, reply.foreign.arguments, facts.helpers) : null;
  return fromBlock ?? fromTool ?? oneLineExample(facts);
}

/** The short prompt: the one allowed form, and nothing else to read. */
export function oneFormMessage(facts: TaskFacts, reply: ReplyAnalysis): string {
  return (
    "Still nothing ran. Reply with exactly this form and nothing else — a ```repl block of Python:\n" +
    `\`\`\`repl\n${lineToCopy(facts, reply)}\n\`\`\`\nWhen an output shows the answer, reply with only: FINAL(the answer)`
  );
}

/** What a turn with no action is told: the reminder for its problem the first time, the one form after that. */
export function inactionReply(facts: TaskFacts, reply: ReplyAnalysis, nth: number): InactionReply {
  if (nth < 2) return { message: messageForInaction(facts, reply, nth), check: null };
  return {
    message: oneFormMessage(facts, reply),
    check: `Escalated: turn without code number ${nth} in this run, so the model was sent a shorter prompt showing the one allowed form; the next such turn hands the run to the harness's own reading.`,
  };
}
