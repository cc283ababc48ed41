// The viewer's rows: every line of the document, long lines wrapped every `width` characters.
// Built from the line index alone (no text is read), so it is rebuilt in a few milliseconds
// when the viewer's width changes, even for millions of lines.
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

export class RowModel {
  /** rowStart[i]: the first row of line i; rowStart[lines] = total rows. */
  private readonly rowStart: Float64Array;

  constructor(
    private readonly index: DocumentIndex,
    readonly width: number,
  ) {
    const { lineStarts } = index;
    const n = lineStarts.length;
    this.rowStart = new Float64Array(n + 1);
    let rows = 0;
    for (let i = 0; i < n; i++) {
      this.rowStart[i] = rows;
      const length = this.lineEnd(i) - lineStarts[i]!;
      rows += length > width ? Math.ceil(length / width) : 1;
    }
    this.rowStart[n] = rows;
  }

  get rows(): number {
    return this.rowStart[this.rowStart.length - 1]!;
  }

  get lines(): number {
    return this.index.lineStarts.length;
  }

  /** Where line i's text ends (its newline, or the end of the document). */
  lineEnd(i: number): number {
    const { lineStarts, totalChars } = this.index;
    return i + 1 < lineStarts.length ? lineStarts[i + 1]! - 1 : totalChars;
  }

  row(r: number): Row {
    const index = Math.max(0, Math.min(r, this.rows - 1));
    const line = lastAtMost(this.rowStart, index, this.lines);
    const segment = index - this.rowStart[line]!;
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
    const rows = this.rowStart[line + 1]! - this.rowStart[line]!;
    const segment = Math.min(rows - 1, Math.floor((c - this.index.lineStarts[line]!) / this.width));
    return this.rowStart[line]! + segment;
  }

  /** The first row of a 0-based line. */
  rowOfLine(line: number): number {
    return this.rowStart[Math.max(0, Math.min(line, this.lines - 1))]!;
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
