// Finals in other harnesses' words (issue 36 §7): a ReAct model ends with "Final Answer: …",
// a chat model with "Answer: …". When that is all the reply says (thoughts aside) it is the
// model's final — taken only once the model has seen some output (the loop checks), and never
// from a reply that also has code, whose output the answer was written before.

/** ReAct's scratch lines, which may come before its final answer. */
const SCRATCH = /^\s*(?:thought|reasoning|observation seen|analysis)\s*:/i;
const LABELLED = /^\s*(?:\*\*)?(final answer|answer)\s*(?:\*\*)?\s*:\s*(?:\*\*)?\s*(.+?)\s*(?:\*\*)?\s*$/i;

/**
 * The value of a reply that is only a labelled answer ("Final Answer: 42", or "Thought: …" lines
 * then one), or null. `text` is the visible reply (thinking removed) of a reply with no code.
 */
export function labelledFinal(text: string): string | null {
  const lines = text.split("\n").filter((l) => l.trim());
  const last = lines.at(-1);
  const m = last ? LABELLED.exec(last) : null;
  if (!m) return null;
  const before = lines.slice(0, -1);
  // "Answer:" alone must be the whole reply; ReAct's "Final Answer:" may follow its Thought lines.
  if (before.length && (m[1]!.toLowerCase() !== "final answer" || !before.every((l) => SCRATCH.test(l)))) return null;
  const value = m[2]!.trim();
  return value ? value : null;
}
