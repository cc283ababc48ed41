// M11: code that runs but extracts the wrong thing. No parser fixes a wrong regex, but two
// mistakes show in what the run already printed (issue 25): an answer that is only a piece of a
// number an output shows ("5" when the output shows 7284615: a greedy `.*(\d+)`), and a count of
// 0 (or an empty list) when an earlier search found matches. Either is asked about once, with
// the evidence; the same answer submitted again stands (the evidence gate remembers it).
import type { CellResult } from "../../repl/protocol.ts";

/** Numbers as outputs print them: with thousands separators or decimals, or a plain digit run. */
const NUMBER = /\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?/g;

/**
 * The number an output shows of which `answer` is only a piece, or null. Only when the answer
 * never appears in an output as a number of its own.
 */
export function numberFragment(answer: string, outputs: readonly string[]): string | null {
  const a = answer.trim();
  if (!/^\d+(?:[.,]\d+)*$/.test(a)) return null;
  let whole: string | null = null;
  for (const text of outputs) {
    for (const m of text.matchAll(NUMBER)) {
      if (m[0] === a) return null;
      if (whole === null && m[0].length > a.length && m[0].includes(a)) whole = m[0];
    }
  }
  return whole;
}

/** "0", "[]", "None"…: what a count or a list is when its pattern matched nothing. */
export function isEmptyAggregate(answer: string): boolean {
  return /^(?:0+(?:\.0+)?|\[\s*\]|\{\s*\}|\(\s*\)|set\(\)|none|null|nothing|no matches?)$/i.test(answer.trim());
}

/** A pattern the code looks for, when it writes one literally: the first of re.*, search(), in, startswith, count. */
export function patternIn(code: string): { pattern: string; regex: boolean } | null {
  const literal = String.raw`[rRbBuU]?(["'])((?:\\.|(?!\1).)*)\1`;
  const regex = new RegExp(String.raw`\bre\.(?:findall|finditer|search|match|fullmatch|compile|sub|split)\(\s*${literal}`).exec(code);
  if (regex) return { pattern: unescape(regex[2]!), regex: true };
  const plain =
    new RegExp(String.raw`\.(?:startswith|endswith|count|find|index)\(\s*${literal}`).exec(code) ??
    new RegExp(String.raw`${literal}\s+in\s+\w`).exec(code);
  return plain ? { pattern: unescape(plain[2]!), regex: false } : null;
}

const unescape = (s: string) => s.replace(/\\(["'\\])/g, "$1");

/** What an earlier cell found: the call and how many matches it printed. */
export interface FoundHits {
  call: string;
  count: number;
}

/** search() printed its numbered hits ("1. [offset 42] …") and maybe "… 12 more matches". */
function searchHits(code: string, stdout: string): FoundHits | null {
  const call = /\bsearch\(\s*[rR]?(["'])((?:\\.|(?!\1).)*)\1/.exec(code);
  const listed = stdout.match(/^\d+\. \[(?:[^\]]*, )?offset \d+\]/gm)?.length ?? 0;
  if (!call || !listed) return null;
  const more = /… (\d+) more matches/.exec(stdout);
  return { call: `search(${JSON.stringify(unescape(call[2]!))})`, count: listed + (more ? Number(more[1]) : 0) };
}

export type ExtractionProblem = { kind: "fragment"; whole: string } | { kind: "empty-aggregate"; found: FoundHits };

export class ExtractionGuard {
  private found: FoundHits | null = null;
  private readonly codes: string[] = [];

  /** After every cell the model ran: remember the last search that found something. */
  noteCell(code: string, result: Pick<CellResult, "stdout">): void {
    this.found = searchHits(code, result.stdout) ?? this.found;
    this.codes.unshift(code);
    this.codes.length = Math.min(this.codes.length, 4);
  }

  /** The last few cells' code, most recent first: where the pattern of a count may be. */
  recentCode(): readonly string[] {
    return this.codes;
  }

  /** A problem with this answer that the outputs show, or null. */
  check(answer: string, outputs: readonly string[]): ExtractionProblem | null {
    if (isEmptyAggregate(answer) && this.found) return { kind: "empty-aggregate", found: this.found };
    const whole = numberFragment(answer, outputs);
    return whole ? { kind: "fragment", whole } : null;
  }
}
