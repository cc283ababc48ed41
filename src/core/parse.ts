// Reading the model's reply: which code to run, and whether it gave a final answer in text.

/** Fence languages we run. Small models write ```python as often as ```repl. */
const RUNNABLE = /^(?:repl|python|py|python3)$/i;

/** Reasoning models (Qwen3) think in <think> blocks; code in there is not meant to run. */
export function stripThinking(text: string): string {
  return text.replace(/<think>[\s\S]*?(?:<\/think>|$)/g, "");
}

/**
 * Extracts runnable code blocks in order. A block opens with ```repl (or python) on its own
 * line and closes with a line that is only ``` — so a fence with a language inside a Python
 * string does not end the block early. A block left open at the end of the reply (the model
 * ran out of tokens) is still returned; Python will report it if it is incomplete.
 */
export function findCodeBlocks(reply: string): string[] {
  const lines = stripThinking(reply).split(/\r?\n/);
  const blocks: string[] = [];
  let current: string[] | null = null;
  for (const line of lines) {
    if (current === null) {
      const open = /^\s*```\s*([A-Za-z0-9_+-]*)\s*$/.exec(line);
      if (open && RUNNABLE.test(open[1] ?? "")) current = [];
    } else if (/^\s*```\s*$/.test(line)) {
      blocks.push(dedent(current.join("\n")));
      current = null;
    } else {
      current.push(line);
    }
  }
  if (current !== null && current.some((l) => l.trim())) blocks.push(dedent(current.join("\n")));
  return blocks.filter((b) => b.trim().length > 0);
}

/** Removes indentation shared by every line (models indent code inside list items). */
function dedent(code: string): string {
  const lines = code.split("\n");
  let common = Infinity;
  for (const l of lines) {
    if (!l.trim()) continue;
    common = Math.min(common, /^[ \t]*/.exec(l)?.[0].length ?? 0);
  }
  if (!Number.isFinite(common) || common === 0) return code.replace(/\s+$/, "");
  return lines.map((l) => l.slice(common)).join("\n").replace(/\s+$/, "");
}

/** The reply without its code fences: where plain-text FINAL(...) may appear. */
function proseOf(reply: string): string {
  const out: string[] = [];
  let inFence = false;
  for (const line of stripThinking(reply).split(/\r?\n/)) {
    if (/^\s*```/.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (!inFence) out.push(line);
  }
  return out.join("\n");
}

export type TextAnswer = { kind: "final"; value: string } | { kind: "final_var"; name: string };

/**
 * The legacy protocol: FINAL(answer) or FINAL_VAR(name) written as plain text at the start of a
 * line, outside code. FINAL_VAR wins when both appear (it names computed data). FINAL takes
 * everything up to the last ")" that ends a line, so answers may contain parentheses and span
 * lines; one pair of surrounding quotes is removed.
 */
export function findTextAnswer(reply: string): TextAnswer | null {
  const prose = proseOf(reply);
  const finalVar = /^\s*(?:\*\*)?FINAL_VAR\(\s*["']?([A-Za-z_][A-Za-z0-9_]*)["']?\s*\)/m.exec(prose);
  if (finalVar?.[1]) return { kind: "final_var", name: finalVar[1] };
  const final = /^\s*(?:\*\*)?FINAL\(([\s\S]*)\)(?:\*\*)?[ \t]*$/m.exec(prose);
  if (final) return { kind: "final", value: unquote((final[1] ?? "").trim()) };
  return null;
}

function unquote(value: string): string {
  const m = /^(?:"""([\s\S]*)"""|'''([\s\S]*)'''|"([\s\S]*)"|'([\s\S]*)')$/.exec(value);
  if (!m) return value;
  return (m[1] ?? m[2] ?? m[3] ?? m[4] ?? "").trim();
}
