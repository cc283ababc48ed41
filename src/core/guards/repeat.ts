// M09: the same action again. Small models re-run a failing cell turn after turn; running it
// again only repeats the error and burns a turn. The loop asks this guard before running a
// turn's code: a repeat is not run, the model gets the cached output and "change approach",
// and after `fallbackAfter` repeats in a row the loop falls back to the harness's own strategy.

/** Code with comments, blank lines, trailing spaces and quote style removed: what it does. */
export function normaliseCode(code: string): string {
  return code
    .split("\n")
    .map((l) => l.replace(/(^|\s)#.*$/, "").replace(/\s+$/, ""))
    .filter((l) => l.trim() !== "")
    .join("\n")
    .replace(/'/g, '"')
    .replace(/[ \t]+/g, " ");
}

/** Sørensen–Dice similarity of character bigrams: 1 for equal texts, near 1 for near-copies. */
export function similarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return 0;
  const grams = new Map<string, number>();
  for (let i = 0; i < a.length - 1; i++) {
    const g = a.slice(i, i + 2);
    grams.set(g, (grams.get(g) ?? 0) + 1);
  }
  let shared = 0;
  for (let i = 0; i < b.length - 1; i++) {
    const g = b.slice(i, i + 2);
    const n = grams.get(g) ?? 0;
    if (n > 0) {
      grams.set(g, n - 1);
      shared++;
    }
  }
  return (2 * shared) / (a.length - 1 + (b.length - 1));
}

/**
 * Code that advances state each time it runs (`i += 1; print(chunks[i])`) is a loop the model
 * drives by hand, not a repeat: re-running it gives new output.
 */
export function advancesState(code: string): boolean {
  return /\+=|-=|\.append\(|\.pop\(|\.extend\(|\.update\(|\.insert\(|\bnext\(|\bdel\s/.test(code);
}

export interface RepeatGuardOptions {
  /** How many earlier turns to compare with (default 2). */
  compareLast?: number;
  /** Similarity from which two actions are the same (default 0.95). */
  threshold?: number;
  /** Repeats in a row after which the loop should fall back (default 2). */
  fallbackAfter?: number;
}

export type RepeatVerdict =
  | { repeated: false }
  | {
      repeated: true;
      /** The earlier run's output, shown again instead of running the code. */
      cachedOutput: string;
      /** The earlier run raised: the repeat counts as the same error again. */
      failed: boolean;
      /** Repeats in a row, this one included. */
      repeats: number;
      fallback: boolean;
    };

interface Seen {
  code: string;
  output: string;
  failed: boolean;
}

export class RepeatGuard {
  private readonly history: Seen[] = [];
  private streak = 0;
  private readonly compareLast: number;
  private readonly threshold: number;
  private readonly fallbackAfter: number;

  constructor(options: RepeatGuardOptions = {}) {
    this.compareLast = options.compareLast ?? 2;
    this.threshold = options.threshold ?? 0.95;
    this.fallbackAfter = options.fallbackAfter ?? 2;
  }

  /** Call with a turn's code (all its cells joined) before running it. */
  check(code: string): RepeatVerdict {
    const norm = normaliseCode(code);
    const match = this.history
      .slice(-this.compareLast)
      .reverse()
      .find((s) => similarity(s.code, norm) >= this.threshold);
    if (!match || (!match.failed && advancesState(norm))) {
      this.streak = 0;
      return { repeated: false };
    }
    this.streak += 1;
    return {
      repeated: true,
      cachedOutput: match.output,
      failed: match.failed,
      repeats: this.streak,
      fallback: this.streak >= this.fallbackAfter,
    };
  }

  /** Call after a turn's code ran, with what the model was shown. */
  record(code: string, output: string, failed: boolean): void {
    this.history.push({ code: normaliseCode(code), output, failed });
    if (this.history.length > 8) this.history.shift();
  }
}
