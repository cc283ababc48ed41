// Leftovers of other chat templates (issue 36 §6): a closing tag with no opening tag — a
// `</think>` after the code, a `</tool_call>`, `</tool_response>` or `</answer>` the template
// trained the model to end with. They are not the model's action and must not be kept in the
// conversation (the model would copy them next turn) nor decide what counts as thinking.

/** Tags of the templates small models were trained on; only these are removed, never arbitrary markup. */
const KNOWN = [
  "think",
  "thinking",
  "reasoning",
  "tool_call",
  "tool_response",
  "function_call",
  "answer",
  "final_answer",
  "response",
  "output",
];

const opener = (tag: string) => new RegExp(String.raw`<${tag}(?:\s[^>]*)?>`, "i");

/** A fence or a FINAL at the start of a line: the text does something. */
const ACTS = /^\s*(?:`{3,}|(?:\*\*)?FINAL(?:_VAR)?\()/m;

/**
 * A lone `</think>` is the end of thinking whose opening tag the server dropped (the reply goes
 * on after it) — unless the text before it already acts and the text after it does not: then it
 * is a leftover after the action, and what came before it is the reply.
 */
export function strayThinkClose(before: string, after: string): boolean {
  return ACTS.test(before) && !ACTS.test(after);
}

/**
 * Removes closing tags of the known kinds that have no opening tag before them, outside code
 * fences (code may well split a document on "</answer>").
 */
export function stripStrayClosers(text: string): string {
  const tags = KNOWN.filter((t) => !t.startsWith("think") && t !== "tool_call" && !opener(t).test(text));
  if (!tags.length || !/<\//.test(text)) return text;
  const stray = new RegExp(String.raw`<\/(?:${tags.join("|")})\s*>`, "gi");
  let inFence = false;
  const kept: string[] = [];
  for (const line of text.split("\n")) {
    if (/^\s*`{3,}/.test(line)) inFence = !inFence && !/^\s*`{3,}.*`{3,}\s*$/.test(line);
    if (inFence || !stray.test(line)) kept.push(line);
    else if (line.replace(stray, "").trim()) kept.push(line.replace(stray, ""));
    stray.lastIndex = 0;
  }
  return kept.join("\n");
}
