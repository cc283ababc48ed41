// The canonical profile: for models trained on the canonical RLM harness (alexzhang13/rlm since
// 2026-05; RLM-Qwen3-8B, mit-oasys/rlm-qwen3-30b-a3b), which submit through the `answer` dict
// and know llm_query_batched, rlm_query and SHOW_VARS. Its shape follows that harness
// (rlm-harness.md §1.4–1.5: system prompt, a metadata line, "Turn k/N", a first-turn safeguard),
// in our own words and with our real limits instead of a cloud model's.
import { ALLOWED_IMPORTS } from "../feedback.ts";
import type { FirstMessageInputs, PromptProfile, SystemPromptInputs } from "./types.ts";
import { groupDigits } from "../numbers.ts";
import { helperLines, offeredNames } from "../repl-vocabulary.ts";

const fmt = groupDigits;

function canonicalSystemPrompt({ budgets, recursive }: SystemPromptInputs): string {
  return `You are a recursive language model. A context too large to read at once is loaded into a Python REPL as the variable \`context\`. You work on it by writing code in \`\`\`repl blocks; each block runs and you see what it prints. The REPL keeps its state between blocks.

In the REPL:
${helperLines("canonical", { budgets, recursive })}

Only printed output is shown, at most ${fmt(budgets.outputCharsPerCell)} characters per block. Probe the context first, then plan how to split the work; use plain Python for exact matching and counting and sub-LLMs for understanding. Check small samples before trusting a result. Set answer["ready"] only after you have printed the candidate answer, and never on your first turn. If turns run short, submit your best answer.`;
}

function canonicalFirstMessage(o: FirstMessageInputs): string {
  const info = o.context;
  const kind = info?.type ?? "str";
  const total = info?.total_chars ?? 0;
  const lines = [
    `Answer the following: ${o.question.trim()}`,
    `Your context is a ${kind} of ${fmt(total)} total characters${info?.type === "dict" ? ` in ${fmt(info.items)} documents` : ""}. Each sub-LLM call can handle about ${fmt(o.budgets.subPromptChars)} characters.`,
  ];
  if (o.previous.length) lines.push(`Earlier questions and answers are in the REPL variable \`history\` (${o.previous.length}).`);
  lines.push(
    "You have not seen the REPL or the context yet. Look at the context first; do not submit an answer on this turn." +
      (o.maxIterations ? `\n\nTurn 1/${o.maxIterations}:` : ""),
  );
  return lines.join("\n\n");
}

export const canonicalProfile: PromptProfile = {
  name: "canonical",
  systemPrompt: canonicalSystemPrompt,
  firstUserMessage: canonicalFirstMessage,
  turnFooter: (turn, max) =>
    max - turn <= 1 ? `Turn ${turn + 1}/${max}: this is the last turn; submit your best answer now.` : `Turn ${turn + 1}/${max}:`,
  finalRequest:
    'You are out of turns. Submit your best answer now: one ```repl block that sets answer["content"] and then answer["ready"] = True.',
  helpers: (recursive) => offeredNames("canonical", recursive),
  allowedImports: ALLOWED_IMPORTS,
  restateTask: false,
};
