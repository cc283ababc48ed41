// A pattern that matched nothing (issue 36 §3): code that sums or counts over a regex that
// matched no line prints 0 (or []), and a small model submits that. What tells it why is the
// document itself: "your pattern matched 0 of 4,102 lines", and one line it should have matched.
import type { LineCounts } from "../repl/protocol.ts";
import { groupDigits } from "./numbers.ts";
import { isEmptyAggregate, patternIn } from "./guards/extraction.ts";

export type LineProbe = (pattern: { pattern: string; regex: boolean } | null) => Promise<LineCounts | null>;

const clip = (text: string, max: number) => {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
};

/** What a cell printed last: "0", "[]"… is an empty result. */
export function printedNothingFound(stdout: string): boolean {
  const last = stdout.trim().split("\n").at(-1) ?? "";
  return last !== "" && isEmptyAggregate(last.replace(/^[\w ]{1,40}[:=]\s*/, ""));
}

/**
 * When the first pattern of `codes` (the cell's, then earlier ones) matched no line of `context`:
 * the message that says so, with a line it should have matched. Null otherwise, or when the
 * REPL cannot say.
 */
export async function emptyMatchNote(codes: ReadonlyArray<string | undefined>, lines: LineProbe): Promise<string | null> {
  const pattern = codes.map((c) => (c ? patternIn(c) : null)).find((p) => p !== null) ?? null;
  if (!pattern) return null;
  const counts = await lines(pattern);
  if (!counts || counts.matched !== 0) return null;
  const example = counts.near ?? counts.first[0] ?? null;
  const shown = example ? ` A line it should have matched:\n  ${clip(example, 200)}` : "";
  return (
    `Your pattern ${JSON.stringify(clip(pattern.pattern, 60))} matched 0 of ${groupDigits(counts.total)} lines of \`context\`, ` +
    `so the result is empty.${shown}\nFix the pattern to match what the lines really contain, then run it again.`
  );
}
