// The viewer's rows: every line of the document, long lines wrapped to the view's width, at a
// space where there is one (issue 34 #8: on a phone, cut every `width` characters, words broke
// mid-word). Only lines longer than `width` are listed, with where each of their rows starts, so
// a million short lines cost no per-line array: the rows are rebuilt whenever the width changes.
import type { DocumentIndex } from "./types.ts";

export interface Row {
  /** 0-based row number. */
  index: number;
  /** 0-based line. */
  line: number;
  /** Character range of the row (the newline excluded). */
  start: number;
  end: number;
  /** The first row of its line (where the line number is shown). */
  first: boolean;
}

/** The lines that wrap at a width, and the rows they add. */
export interface WrapTable {
  /** The lines longer than the width, ascending. */
  longLines: Uint32Array;
  /** extraBefore[j]: rows added by the wrapping lines before longLines[j]; one more entry for all. */
  extraBefore: Float64Array;
  /**
   * Where each added row starts, in characters from its line's start: long line j's rows after
   * its first start at breaks[extraBefore[j]] … breaks[extraBefore[j + 1] - 1].
   */
  breaks: Uint32Array;
}

/** Past this, a line is cut every `width` characters without looking for spaces (its text is not read whole). */
export const MAX_WORD_WRAP_LINE = 4_000_000;

/**
 * Where the rows of one line start after its first, in code points: each row as long as fits in
 * `width` and ending after a space, or cut at `width` when a word alone is longer.
 */
export function wordBreaks(text: string, width: number): number[] {
  const chars = Array.from(text);
  const breaks: number[] = [];
  for (let at = 0; chars.length - at > width;) {
    let next = at + width;
    for (let k = at + width; k > at; k--) {
      if (/\s/.test(chars[k - 1]!)) {
        next = k;
        break;
      }
    }
    // A space at the very start of the row is no place to break (it would give an empty row).
    if (next <= at) next = at + width;
    breaks.push(next);
    at = next;
  }
  return breaks;
}

/** Rows every `width` characters of a line `length` long. */
function fixedBreaks(length: number, width: number): number[] {
  const breaks: number[] = [];
  for (let at = width; at < length; at += width) breaks.push(at);
  return breaks;
}

/** Every long line cut every `width` characters: what the rows are until the worker's word-wrapped table arrives. */
export function fixedWrapTable(lineStarts: Uint32Array, totalChars: number, width: number): WrapTable {
  const long: number[] = [];
  const extra: number[] = [0];
  const breaks: number[] = [];
  const n = lineStarts.length;
  for (let i = 0; i < n; i++) {
    const length = (i + 1 < n ? lineStarts[i + 1]! - 1 : totalChars) - lineStarts[i]!;
    if (length <= width) continue;
    const own = fixedBreaks(length, width);
    long.push(i);
    for (const b of own) breaks.push(b);
    extra.push(extra[extra.length - 1]! + own.length);
  }
  return { longLines: Uint32Array.from(long), extraBefore: Float64Array.from(extra), breaks: Uint32Array.from(breaks) };
}

/**
 * One pass over the line starts; `readLine` gives a long line's text to break at spaces (the
 * viewer's worker reads it from the stored document). Without it, lines are cut every `width`.
 */
export async function wrapTable(
  lineStarts: Uint32Array,
  totalChars: number,
  width: number,
  readLine?: (start: number, end: number) => Promise<string>,
): Promise<WrapTable> {
  const long: number[] = [];
  const extra: number[] = [0];
  const breaks: number[] = [];
  const n = lineStarts.length;
  for (let i = 0; i < n; i++) {
    const start = lineStarts[i]!;
    const length = (i + 1 < n ? lineStarts[i + 1]! - 1 : totalChars) - start;
    if (length <= width) continue;
    const own =
      readLine && length <= MAX_WORD_WRAP_LINE ? wordBreaks(await readLine(start, start + length), width) : fixedBreaks(length, width);
    long.push(i);
    for (const b of own) breaks.push(b);
    extra.push(extra[extra.length - 1]! + own.length);
  }
  return { longLines: Uint32Array.from(long), extraBefore: Float64Array.from(extra), breaks: Uint32Array.from(breaks) };
}

export class RowModel {
  private readonly longLines: Uint32Array;
  private readonly extraBefore: Float64Array;
  private readonly breaks: Uint32Array;

  constructor(
    private readonly index: DocumentIndex,
    readonly width: number,
    table: WrapTable = fixedWrapTable(index.lineStarts, index.totalChars, width),
  ) {
    this.longLines = table.longLines;
    this.extraBefore = table.extraBefore;
    this.breaks = table.breaks;
  }

  get lines(): number {
    return this.index.lineStarts.length;
  }

  get rows(): number {
    return this.lines + this.extraBefore[this.extraBefore.length - 1]!;
  }

  /** Where line i's text ends (its newline, or the end of the document). */
  lineEnd(i: number): number {
    const { lineStarts, totalChars } = this.index;
    return i + 1 < lineStarts.length ? lineStarts[i + 1]! - 1 : totalChars;
  }

  /** Wrapping lines before line `line`. */
  private longBefore(line: number): number {
    let lo = 0;
    let hi = this.longLines.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.longLines[mid]! < line) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The first row of a 0-based line. */
  rowOfLine(line: number): number {
    const l = Math.max(0, Math.min(line, this.lines - 1));
    return l + this.extraBefore[this.longBefore(l)]!;
  }

  row(r: number): Row {
    const index = Math.max(0, Math.min(r, this.rows - 1));
    // The last wrapping line that starts at or before this row decides the line.
    let lo = 0;
    let hi = this.longLines.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.longLines[mid]! + this.extraBefore[mid]! <= index) lo = mid + 1;
      else hi = mid;
    }
    const j = lo - 1;
    if (j >= 0 && index < this.longLines[j]! + this.extraBefore[j + 1]! + 1) {
      const line = this.longLines[j]!;
      const segment = index - (line + this.extraBefore[j]!);
      const lineStart = this.index.lineStarts[line]!;
      const first = this.extraBefore[j]!;
      const start = lineStart + (segment === 0 ? 0 : this.breaks[first + segment - 1]!);
      const end = first + segment < this.extraBefore[j + 1]! ? lineStart + this.breaks[first + segment]! : this.lineEnd(line);
      return { index, line, start, end, first: segment === 0 };
    }
    const line = index - this.extraBefore[lo]!;
    return { index, line, start: this.index.lineStarts[line]!, end: this.lineEnd(line), first: true };
  }

  /** The 0-based line holding character `c`. */
  lineOf(c: number): number {
    return lastAtMost(this.index.lineStarts, c, this.lines);
  }

  /** The row showing character `c` (a newline belongs to its line's last row). */
  rowOf(c: number): number {
    const line = this.lineOf(c);
    const j = this.longBefore(line);
    if (this.longLines[j] !== line) return this.rowOfLine(line);
    // The breaks of this line at or before c: the row's number within its line.
    const from = this.extraBefore[j]!;
    const segment = lastAtMost(this.breaks.subarray(from, this.extraBefore[j + 1]!), c - this.index.lineStarts[line]!, undefined, -1) + 1;
    return this.rowOfLine(line) + segment;
  }
}

/** The largest i < n with values[i] <= target (values ascending; `none` when none, 0 by default). */
export function lastAtMost(values: ArrayLike<number>, target: number, n = values.length, none = 0): number {
  if (n === 0 || values[0]! > target) return none;
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (values[mid]! <= target) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
