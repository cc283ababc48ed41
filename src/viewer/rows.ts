// The viewer's rows: every line of the document, long lines wrapped every `width` characters.
// Built from the line index alone (no text is read). Only lines longer than `width` are
// listed, so building the rows for a million-line document is one pass of subtractions and
// no per-line array: it happens on the main thread whenever the viewer's width changes.
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
}

/**
 * One pass over the line starts. The viewer asks its worker for this (a million lines take tens
 * of milliseconds before the JIT warms up): the page only receives the result.
 */
export function wrapTable(lineStarts: Uint32Array, totalChars: number, width: number): WrapTable {
  const long: number[] = [];
  const extra: number[] = [0];
  const n = lineStarts.length;
  for (let i = 0; i < n; i++) {
    const length = (i + 1 < n ? lineStarts[i + 1]! - 1 : totalChars) - lineStarts[i]!;
    if (length > width) {
      long.push(i);
      extra.push(extra[extra.length - 1]! + Math.ceil(length / width) - 1);
    }
  }
  return { longLines: Uint32Array.from(long), extraBefore: Float64Array.from(extra) };
}

export class RowModel {
  private readonly longLines: Uint32Array;
  private readonly extraBefore: Float64Array;

  constructor(
    private readonly index: DocumentIndex,
    readonly width: number,
    table: WrapTable = wrapTable(index.lineStarts, index.totalChars, width),
  ) {
    this.longLines = table.longLines;
    this.extraBefore = table.extraBefore;
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

  private rowsOfLine(line: number): number {
    const length = this.lineEnd(line) - this.index.lineStarts[line]!;
    return length > this.width ? Math.ceil(length / this.width) : 1;
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
    let line: number;
    let segment = 0;
    const j = lo - 1;
    if (j >= 0 && index < this.longLines[j]! + this.extraBefore[j + 1]! + 1) {
      line = this.longLines[j]!;
      segment = index - (line + this.extraBefore[j]!);
    } else {
      line = index - this.extraBefore[lo]!;
    }
    const start = this.index.lineStarts[line]! + segment * this.width;
    return { index, line, start, end: Math.min(this.lineEnd(line), start + this.width), first: segment === 0 };
  }

  /** The 0-based line holding character `c`. */
  lineOf(c: number): number {
    return lastAtMost(this.index.lineStarts, c, this.lines);
  }

  /** The row showing character `c` (a newline belongs to its line's last row). */
  rowOf(c: number): number {
    const line = this.lineOf(c);
    const segment = Math.min(this.rowsOfLine(line) - 1, Math.floor((c - this.index.lineStarts[line]!) / this.width));
    return this.rowOfLine(line) + segment;
  }
}

/** The largest i < n with values[i] <= target (values ascending; 0 when none). */
export function lastAtMost(values: ArrayLike<number>, target: number, n = values.length): number {
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (values[mid]! <= target) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
