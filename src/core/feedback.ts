// What the loop tells the root model when a turn went wrong: one line that names the problem
// and what to do instead (never "your reply had no ```repl block" for a ```bash block), then,
// for small roots, the task restated with the names that exist and the imports that work
// (M10: OpenAgents' "REMINDER: Your task is to answer …" turned derailed runs around).
import type { RefusedFinal } from "./finals.ts";
import type { StuckReason } from "./guards/stuck.ts";
import type { ForeignProtocol, ReplyAnalysis } from "./reply.ts";

/** Modules a model may import (all in Pyodide's standard library, none needs a download). */
export const ALLOWED_IMPORTS: readonly string[] = [
  "re",
  "json",
  "math",
  "collections",
  "itertools",
  "functools",
  "statistics",
  "string",
  "textwrap",
  "difflib",
  "datetime",
];

export interface TaskFacts {
  question: string;
  /** One line describing `context` (prompts.describeContext). */
  context: string;
  /** Helpers the prompt profile offers (llm_query, search, …). */
  helpers: readonly string[];
  /** The model's variables right now. */
  variables: readonly string[];
  allowedImports: readonly string[];
  /** Append the task reminder to every message (the guided profile does). */
  restate: boolean;
}

const clip = (text: string, max: number) => {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
};

const list = (items: readonly string[], none = "none yet") => (items.length ? items.slice(0, 20).join(", ") : none);

/** The task restated with what exists: the line every small-root message ends with. */
export function taskReminder(facts: TaskFacts): string {
  return (
    `REMINDER: your task is to answer: ${clip(facts.question, 300)} ${facts.context} ` +
    `Helpers: ${list(facts.helpers)}. Your variables: ${list(facts.variables)}. ` +
    `Import only: ${facts.allowedImports.join(", ")}.`
  );
}

function withTask(facts: TaskFacts, ...lines: string[]): string {
  return [...lines.filter(Boolean), facts.restate ? taskReminder(facts) : ""].filter(Boolean).join("\n");
}

const FORMAT = "Reply with one ```repl block of Python, or FINAL(your answer) when you have it.";

/** M01: no code and no final (prose, a plan, an echo). */
export function noActionMessage(facts: TaskFacts): string {
  return withTask(facts, `Nothing ran: your reply had no code. ${FORMAT}`);
}

export function emptyReplyMessage(facts: TaskFacts): string {
  return withTask(facts, `Your reply was empty. ${FORMAT}`);
}

export function refusalMessage(facts: TaskFacts): string {
  return withTask(facts, `This task is safe: it is about the document in \`context\`. ${FORMAT}`);
}

/** M06: ```bash, ```javascript… never run. */
export function wrongLanguageMessage(facts: TaskFacts, languages: readonly string[]): string {
  const names = [...new Set(languages)].map((l) => `\`\`\`${l}`).join(" and ");
  return withTask(
    facts,
    `Your ${names} block was not run: only Python runs here, in a \`\`\`repl block (use re and str methods, not shell tools).`,
  );
}

/** M06: a ```markdown (or other) block that is not Python after all. */
export function notPythonMessage(facts: TaskFacts, language: string, syntaxError: string): string {
  return withTask(
    facts,
    `Your \`\`\`${language || "(no language)"} block is not Python (${clip(syntaxError, 120)}), so it was not run. Put Python in a \`\`\`repl block.`,
  );
}

/** M07: tool-call JSON, <tool_call>, ReAct. */
export function foreignProtocolMessage(facts: TaskFacts, call: ForeignProtocol): string {
  const what = call.kind === "react" ? "Action/Action Input lines" : "Tool calls";
  return withTask(
    facts,
    `${what} do nothing here. Write Python in a \`\`\`repl block and call functions from it, e.g. print(llm_query("...")).`,
  );
}

/** M08: the code or FINAL was only inside <think>. */
export function actionInThinkingMessage(facts: TaskFacts): string {
  return withTask(facts, "Your code was inside <think>…</think>, so nothing ran. Write the ```repl block after your thinking, not in it.");
}

/** M05: the reply was cut where it started inventing output. */
export function fabricatedOutputNote(finalIgnored: boolean): string {
  return (
    "Text after your code that looked like REPL output was removed: only the REPL writes output, after your code runs." +
    (finalIgnored ? " The FINAL written after it was ignored." : "")
  );
}

/** M09 inside one turn: the reply was cut where it began repeating itself. */
export function runawayNote(): string {
  return "Your reply kept repeating the same text, so it was cut off there. Write one short ```repl block.";
}

/** M06: an unclosed fence ran without its cut-off last line (or as far as it went). */
export function unclosedFenceNote(droppedLine: string | null): string {
  return droppedLine
    ? `Your code block was not closed with \`\`\`; it ran without its cut-off last line \`${clip(droppedLine, 80)}\`.`
    : "Your code block was not closed with ```; it ran as written. Close every block with ```.";
}

/** M09: the same action again; not run. */
export function repeatedActionMessage(facts: TaskFacts, cachedOutput: string): string {
  return withTask(
    facts,
    "You sent the same code as before, so it was not run again. Its output was:",
    cachedOutput.trim() || "(no output)",
    "Change approach: search for other words, print a different slice, or ask llm_query about a chunk.",
  );
}

/** M03d: FINAL(name) / FINAL_VAR(name) of a variable that does not exist. */
export function missingVariableMessage(facts: TaskFacts, name: string): string {
  return withTask(
    facts,
    `There is no variable named \`${name}\`, so nothing was submitted. Variables: ${list(facts.variables)}. ` +
      "Put the answer in a variable first, or write FINAL(the answer itself).",
  );
}

/** M03g: an empty, placeholder or plan "answer". */
export function refusedFinalMessage(facts: TaskFacts, why: RefusedFinal): string {
  const line =
    why === "empty"
      ? "Your FINAL() was empty, so it was not accepted. Write FINAL(the answer itself)."
      : why === "placeholder"
        ? "That FINAL(...) is a placeholder, not an answer. Find the answer with code, then FINAL(the answer)."
        : "Your FINAL(...) describes a plan, not an answer. Do the work in a ```repl block first; submit only the answer.";
  return withTask(facts, line);
}

/** M02: the evidence gate refused a final. */
export function evidenceRefusedMessage(facts: TaskFacts, reason: "no-code-yet" | "not-in-output"): string {
  const line =
    reason === "no-code-yet"
      ? "Your answer was not accepted: you have NOT looked at `context` yet, and it is too long to guess. Run code first."
      : "Your answer was not accepted: no output so far shows it. Print the evidence from `context`, then submit again.";
  return withTask(facts, line);
}

/** M04: a text FINAL next to code, dropped after the code ran. */
export function finalWithCodeMessage(why: "code-failed" | "not-in-output"): string {
  return why === "code-failed"
    ? "Your FINAL(...) was not accepted: the code in the same reply failed. Fix it, then submit."
    : "Your FINAL(...) was not accepted: it was written before this output existed, and the output does not show it. Check the output, then submit.";
}

/** M09/M10/M12: early warnings before the loop gives up on the model. */
export function stuckWarning(facts: TaskFacts, reason: StuckReason): string {
  const line =
    reason === "same-error"
      ? "The same error again: stop repeating the fix and try another way."
      : reason === "no-context"
        ? "Your last turns did not read `context`: the answer is in `context`, so look at it."
        : `That module is not available here (nothing can be installed). Import only: ${facts.allowedImports.join(", ")}.`;
  return withTask(facts, line);
}

/** The one message for a turn that did nothing the loop could run, chosen by its problem. */
export function messageForInaction(facts: TaskFacts, reply: ReplyAnalysis): string {
  if (reply.foreign) return foreignProtocolMessage(facts, reply.foreign);
  if (reply.problems.includes("action-in-thinking")) return actionInThinkingMessage(facts);
  if (reply.refused.length)
    return wrongLanguageMessage(
      facts,
      reply.refused.map((b) => b.language),
    );
  if (reply.problems.includes("empty")) return emptyReplyMessage(facts);
  if (reply.problems.includes("refusal")) return refusalMessage(facts);
  if (reply.problems.includes("echo")) return withTask(facts, `Your reply repeated the message you were sent. ${FORMAT}`);
  const fabricated = reply.problems.includes("fabricated-output")
    ? fabricatedOutputNote(reply.problems.includes("final-after-fabricated-output"))
    : "";
  return [fabricated, noActionMessage(facts)].filter(Boolean).join("\n");
}
