// One whole scripted RLM answer over a 1 MB document, the same in the CLI's and the page's
// benchmarks so their times compare: six root turns (the third and fourth make four sub-calls
// each over ~2,000-token pieces), the replies forced by a grammar on a random-weight model.

export const DOC_BYTES = 1_000_000;
/** Characters per sub-call piece: about 2,000 tokens. */
export const CHUNK_CHARS = 8_000;
export const QUESTION = "What is the vault code?";
export const EXPECTED = "The vault code is 4711.";
/** What every sub-call begins with (the page's grammar hook tells sub-calls from root turns by it). */
export const SUB_PROMPT = "Does this part mention the vault code? Answer in one line.";
export const SUB_REPLY = "No, this part does not mention it.";

/** A 1 MB document of numbered lines, with the answer in one of them. */
export function scriptedDocument(): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 1; size < DOC_BYTES; i++) {
    const line = i === 12_345 ? `Line ${i}: the vault code is 4711.` : `Line ${i}: nothing in particular happens here, as on most lines.`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n");
}

/** The root's replies, in order; a turn past the last repeats it. */
export const ROOT_TURNS = [
  "```repl\nprint(len(context))\nprint(context[:300])\n```",
  "```repl\nimport re\nhits = [m.start() for m in re.finditer('vault', context)]\nprint(len(hits), hits[:3])\n```",
  `\`\`\`repl\nstep = len(context) // 8\nparts = [context[i * step:i * step + ${CHUNK_CHARS}] for i in range(8)]\nfirst = [llm_query('${SUB_PROMPT}\\n' + p) for p in parts[:4]]\nprint(first)\n\`\`\``,
  `\`\`\`repl\nsecond = [llm_query('${SUB_PROMPT}\\n' + p) for p in parts[4:]]\nprint(second)\n\`\`\``,
  "```repl\nline = context[hits[0] - 40:hits[0] + 40]\nprint(line)\n```",
  `\`\`\`repl\nFINAL('${EXPECTED}')\n\`\`\``,
];

/** The root reply for a conversation that already holds `assistantTurns` replies. */
export function rootReply(assistantTurns: number): string {
  return ROOT_TURNS[Math.min(assistantTurns, ROOT_TURNS.length - 1)]!;
}

/** One model call of the scripted answer, as llama.cpp reported it. */
export interface AnsweredCall {
  role: "root" | "sub";
  promptTokens: number;
  evaluatedTokens: number;
  generatedTokens: number;
  prefillMs: number;
  generateMs: number;
}

/** Where the answer's model time went: the root's turns and the sub-calls, reading and writing. */
export interface AnswerParts {
  rootPrefillMs: number;
  rootGenerateMs: number;
  subPrefillMs: number;
  subGenerateMs: number;
  rootPrompt: number;
  rootEvaluated: number;
  subPrompt: number;
  generated: number;
  rootTurns: number;
  subcalls: number;
}

export function answerParts(calls: readonly AnsweredCall[]): AnswerParts {
  const of = (role: AnsweredCall["role"]) => calls.filter((c) => c.role === role);
  const sum = (role: AnsweredCall["role"], pick: (c: AnsweredCall) => number) => of(role).reduce((t, c) => t + pick(c), 0);
  return {
    rootPrefillMs: sum("root", (c) => c.prefillMs),
    rootGenerateMs: sum("root", (c) => c.generateMs),
    subPrefillMs: sum("sub", (c) => c.prefillMs),
    subGenerateMs: sum("sub", (c) => c.generateMs),
    rootPrompt: sum("root", (c) => c.promptTokens),
    rootEvaluated: sum("root", (c) => c.evaluatedTokens),
    subPrompt: sum("sub", (c) => c.promptTokens),
    generated: calls.reduce((t, c) => t + c.generatedTokens, 0),
    rootTurns: of("root").length,
    subcalls: of("sub").length,
  };
}

/** Time outside the model's reading and writing: loading, Python, the loop. */
export function restMs(totalMs: number, p: AnswerParts): number {
  return totalMs - p.rootPrefillMs - p.rootGenerateMs - p.subPrefillMs - p.subGenerateMs;
}
