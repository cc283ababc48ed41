// The guided profile for small roots (≤ 4B): the only documented small-model turnaround
// (OpenAgents' guided tier, small-models.md summary item 5) is a short prompt with few helpers,
// one worked example, "You have NOT seen the context yet", the allowed imports, and the task
// restated after every turn. Two helpers do the multi-step work for the model: search() and
// map_query(), so a 0.5B root composes one call instead of orchestrating many.
import { describeContext } from "../prompts.ts";
import type { FirstMessageInputs, PromptProfile, SystemPromptInputs } from "./types.ts";
import { groupDigits } from "../numbers.ts";
import { helperLines, offeredNames } from "../repl-vocabulary.ts";

/** Fewer than the standard list: small models misuse what they do not need (M12, M13). */
const GUIDED_IMPORTS = ["re", "json", "math", "collections"] as const;

const fmt = groupDigits;

function guidedSystemPrompt({ budgets, recursive }: SystemPromptInputs): string {
  return `You answer one question about a long document. The document is the Python variable \`context\`. You cannot see it: you only see what your code prints.

Every reply: one short sentence, then ONE \`\`\`repl block of Python. It runs, and you get its output next turn. Variables are kept.

Helpers you can call in the block:
${helperLines("guided", { budgets, recursive })}

Rules:
- import only ${GUIDED_IMPORTS.join(", ")}. Nothing else is installed.
- Use print(). Only ${fmt(budgets.outputCharsPerCell)} characters of output are shown.
- Never write the output yourself. Call FINAL only after an output shows the answer.

Example. Question: "When is the deadline?"
Turn 1:
\`\`\`repl
print(search("deadline"))
\`\`\`
Turn 2, after the output showed "1. [offset 5120] ... the deadline is 3 March ...":
FINAL("3 March")`;
}

function guidedFirstMessage(o: FirstMessageInputs): string {
  let q = o.question.trim();
  if (q.length > o.budgets.questionChars) q = `${q.slice(0, o.budgets.questionChars)} … [cut; the full question is in \`context\`]`;
  const parts = [`Question: ${q}`, describeContext(o.context)];
  if (o.previous.length) {
    const last = o.previous[o.previous.length - 1]!;
    parts.push(`Earlier question: ${clip(last.question, 150)} → answer: ${clip(last.answer, 200)}`);
  }
  parts.push(
    "You have NOT seen the context yet. Your first step MUST be to look at it: search(...) for words from the question, or print(context[:500]).",
  );
  return parts.join("\n\n");
}

function clip(text: string, max: number): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
}

export const guidedProfile: PromptProfile = {
  name: "guided",
  systemPrompt: guidedSystemPrompt,
  firstUserMessage: guidedFirstMessage,
  turnFooter(turn, max, question) {
    const task = `Question: ${clip(question, 160)}`;
    if (max - turn <= 1) return `${task}\nLast turn (${turn + 1} of ${max}): reply FINAL(your best answer) now.`;
    return `${task}\nTurn ${turn + 1} of ${max}: one \`\`\`repl block, or FINAL(answer) once an output shows it.`;
  },
  finalRequest: "You are out of turns. Do not write code. Reply with FINAL(your best answer) from what the outputs showed.",
  helpers: (recursive) => offeredNames("guided", recursive),
  allowedImports: GUIDED_IMPORTS,
  restateTask: true,
};
