// What the loop tells the root model when a turn went wrong: one line that names the problem
// and what to do instead (never "your reply had no ```repl block" for a ```bash block), then,
// for small roots, the task restated with the names that exist and the imports that work
// (M10: OpenAgents' "REMINDER: Your task is to answer …" turned derailed runs around).
import type { RefusedFinal } from "./finals.ts";
import { groupDigits } from "./numbers.ts";
import type { StuckReason } from "./guards/stuck.ts";
import type { ForeignProtocol, ReplyAnalysis } from "./reply.ts";
import { pythonForBlock, pythonForTool } from "./python-equivalent.ts";

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

const STOP_WORDS = new Set(
  "what which where when whose with from that this there their about into does mentioned provided document context question answer number text given".split(
    " ",
  ),
);

/** The one line a model can copy: search for a word of the question, or print the start of `context`. */
export function oneLineExample(facts: TaskFacts): string {
  if (!facts.helpers.includes("search")) return "print(context[:2000])";
  const words = (facts.question.match(/[A-Za-z][\w-]{3,}/g) ?? []).filter((w) => !STOP_WORDS.has(w.toLowerCase()));
  const word = words.reduce((best, w) => (w.length > best.length ? w : best), "");
  return word ? `print(search(${JSON.stringify(word)}))` : "print(context[:2000])";
}

/** M01 again, after the model acted in between: shorter, with one line to copy (issue 25). */
export function noActionAgainMessage(facts: TaskFacts): string {
  return withTask(facts, `Still nothing ran. Reply with only a code block, for example:\n\`\`\`repl\n${oneLineExample(facts)}\n\`\`\``);
}

export function emptyReplyMessage(facts: TaskFacts): string {
  return withTask(facts, `Your reply was empty. ${FORMAT}`);
}

export function refusalMessage(facts: TaskFacts): string {
  return withTask(facts, `This task is safe: it is about the document in \`context\`. ${FORMAT}`);
}

/** The Python a command stands for, shown to copy (issue 36 §8), or "". */
const inPython = (python: string | null) => (python ? ` In Python that is:\n\`\`\`repl\n${python}\n\`\`\`` : "");

/** M06: ```bash, ```javascript… never run; `codes`: the blocks, for the Python they stand for. */
export function wrongLanguageMessage(facts: TaskFacts, languages: readonly string[], codes: readonly string[] = []): string {
  const names = [...new Set(languages)].map((l) => `\`\`\`${l}`).join(" and ");
  const python = codes.map((c, i) => pythonForBlock(languages[i] ?? "", c, facts.helpers)).find((p) => p !== null) ?? null;
  return withTask(
    facts,
    `Your ${names} block was not run: only Python runs here, in a \`\`\`repl block (use re and str methods, not shell tools).${inPython(python)}`,
  );
}

const SHELL_WORDS = /^\s*(?:ls|dir|cd|md|mkdir|rm|cp|mv|cat|type|grep|find|echo|head|tail|wc|sed|awk|curl|wget|pip|npm|git|sudo)\b/m;

/** M06: a bare fence, a ```markdown (or other) block that is not Python after all (checked with ast.parse). */
export function notPythonMessage(facts: TaskFacts, language: string, syntaxError: string, code = ""): string {
  const what = language ? `\`\`\`${language} block` : "code block";
  const instead = SHELL_WORDS.test(code) ? " (use re and str methods on `context`, not shell commands)" : "";
  return withTask(
    facts,
    `Only Python runs here: your ${what} is not Python (${clip(syntaxError, 120)}), so it was not run. ` +
      `Write Python in a \`\`\`repl block${instead}.${inPython(pythonForBlock(language, code, facts.helpers))}`,
  );
}

/** Tools that run code elsewhere: their text argument is the code the model meant. */
const CODE_RUNNERS = /^(?:python\w*|execute\w*|exec|run_code|run_python|tool_code|code_interpreter|ipython|repl)$/i;

/** The Python a tool call stands for, when it carries code or names a function that exists here. */
function pythonFor(call: ForeignProtocol, helpers: readonly string[]): string | null {
  const args = call.arguments ?? {};
  const runner = CODE_RUNNERS.test(call.name ?? "");
  const code = [args.code, args.python, args.source, ...(runner ? [args.input, args.command, args.script] : [])].find(
    (v) => typeof v === "string",
  );
  if (typeof code === "string" && code.trim()) return code.trim();
  if (!call.name || !helpers.includes(call.name)) return null;
  const values = Object.values(args).filter((v) => typeof v === "string" || typeof v === "number");
  return `print(${call.name}(${values.map((v) => JSON.stringify(v)).join(", ")}))`;
}

/** M07: tool-call JSON, <tool_call>, XML-ish commands, ReAct — never run as Python. */
export function foreignProtocolMessage(facts: TaskFacts, call: ForeignProtocol): string {
  const what = call.kind === "react" ? "Action/Action Input lines do" : "Tool calls do";
  const python = pythonFor(call, facts.helpers);
  const missing = call.name ? `There is no \`${clip(call.name, 60)}\` here. ` : "";
  const meant = python ? null : pythonForTool(call.name, call.arguments, facts.helpers);
  const instead = python
    ? `Write it like this:\n\`\`\`repl\n${python}\n\`\`\``
    : meant
      ? `${missing}${inPython(meant).trim()}`
      : `${missing}The functions are: ${list(facts.helpers)}. ` + 'Call them in a ```repl block, e.g. print(llm_query("...")).';
  return withTask(facts, `${what} nothing here: tools are Python functions, called in a \`\`\`repl block. ${instead}`);
}

/** M07: an llm_query or FINAL_VAR tool call was run as the Python it stands for. */
export function mappedToolCallNote(code: string): string {
  return `Your tool call was run as Python: \`${clip(code, 160)}\`. Next time write the call in a \`\`\`repl block: tools are Python functions here.`;
}

/** Two different FINALs beside code that had not run: neither was taken. */
export function conflictingFinalsMessage(values: readonly string[]): string {
  const shown = values.slice(0, 3).map((v) => (v.startsWith("FINAL_VAR(") ? v : `FINAL(${clip(v, 60)})`));
  return (
    `Your reply had ${values.length === 2 ? "two" : values.length} different answers (${shown.join(" and ")}), written before your code ran, ` +
    "so neither was taken. Read the output, then give one answer."
  );
}

/** A cell printed FINAL(...) as text: that submits nothing. */
export function printedFinalMessage(line: string): string {
  const call = clip(line.trim(), 120);
  return `Your code printed ${call}: printing it submits nothing. Write ${call} on its own line after your code block, outside it (or call it in the code, without print).`;
}

/** M11: an answer that is only part of a number an output shows. */
export function numberFragmentMessage(facts: TaskFacts, answer: string, whole: string, where: "output" | "document" = "output"): string {
  const shows = where === "output" ? "a number the output shows" : "a longer value in the document";
  return withTask(
    facts,
    `Your answer ${clip(answer, 40)} is only part of ${shows}: ${whole}. ` +
      "Check what your code extracts (a greedy .* before a group takes the digits before it), then submit the whole value.",
  );
}

/** What the REPL says about the lines of `context` and a pattern, for the empty-aggregate message. */
export interface LineEvidence {
  total: number;
  /** Lines the final's pattern matched, when the pattern is known. */
  matched: number | null;
  pattern: string | null;
  first: readonly string[];
}

/** M11: a count of 0 or an empty list while an earlier search found matches. */
export function emptyAggregateMessage(
  facts: TaskFacts,
  answer: string,
  found: { call: string; count: number },
  lines: LineEvidence | null,
): string {
  const head = `Your answer is ${clip(answer, 20) || "empty"}, but ${found.call} found ${groupDigits(found.count)} match${found.count === 1 ? "" : "es"} earlier.`;
  if (!lines) return withTask(facts, head, "Check the pattern your code uses against those matches, then submit again.");
  const matched =
    lines.matched !== null && lines.pattern !== null
      ? `Your pattern ${JSON.stringify(clip(lines.pattern, 60))} matched ${groupDigits(lines.matched)} of ${groupDigits(lines.total)} lines`
      : `\`context\` has ${groupDigits(lines.total)} lines`;
  const first = lines.first.map((l) => `  ${clip(l, 160)}`).join("\n");
  return withTask(facts, head, `${matched}; the first lines are:\n${first}`, "Match what these lines really contain, then submit again.");
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

/**
 * The one message for a turn that did nothing the loop could run, chosen by its problem. `nth`:
 * the run's how-manyth no-action turn this is; a repeated plain reminder gets shorter.
 */
export function messageForInaction(facts: TaskFacts, reply: ReplyAnalysis, nth = 1): string {
  if (reply.foreign) return foreignProtocolMessage(facts, reply.foreign);
  if (reply.problems.includes("action-in-thinking")) return actionInThinkingMessage(facts);
  if (reply.refused.length)
    return wrongLanguageMessage(
      facts,
      reply.refused.map((b) => b.language),
      reply.refused.map((b) => b.code),
    );
  if (reply.problems.includes("empty")) return emptyReplyMessage(facts);
  if (reply.problems.includes("refusal")) return refusalMessage(facts);
  if (reply.problems.includes("echo")) return withTask(facts, `Your reply repeated the message you were sent. ${FORMAT}`);
  const fabricated = reply.problems.includes("fabricated-output")
    ? fabricatedOutputNote(reply.problems.includes("final-after-fabricated-output"))
    : "";
  return [fabricated, nth > 1 ? noActionAgainMessage(facts) : noActionMessage(facts)].filter(Boolean).join("\n");
}
