// Which rows are on screen and how the scrollbar maps to them. Only visible rows are rendered;
// past a few million rows the scroll height is capped (browsers refuse taller elements) and a
// pixel of scrollbar stands for more than a pixel of text, so every row stays reachable.
/** Tall enough for ~400,000 rows at 1:1; well under every browser's element-height limit. */
export const MAX_SCROLL_PX = 8_000_000;

export interface Viewport {
  /** First rendered row (a few above the visible ones). */
  firstRow: number;
  count: number;
  /** The row at the top edge of the view. */
  topRow: number;
  /** Where the first rendered row sits in the scroll content, in px. */
  topPx: number;
  /** Height of the scroll content. */
  spacerPx: number;
}

function scaleOf(rows: number, rowHeight: number, viewHeight: number): { spacer: number; scale: number } {
  const total = rows * rowHeight;
  const spacer = Math.min(total, MAX_SCROLL_PX);
  const scale = total > spacer && spacer > viewHeight ? (total - viewHeight) / (spacer - viewHeight) : 1;
  return { spacer, scale };
}

export function layout(rows: number, rowHeight: number, scrollTop: number, viewHeight: number, overscan = 10): Viewport {
  const { spacer, scale } = scaleOf(rows, rowHeight, viewHeight);
  const virtual = Math.max(0, scrollTop) * scale;
  const topRow = Math.min(Math.max(0, rows - 1), Math.floor(virtual / rowHeight));
  const firstRow = Math.max(0, topRow - overscan);
  const count = Math.max(0, Math.min(rows - firstRow, Math.ceil(viewHeight / rowHeight) + 2 * overscan + 1));
  return { firstRow, count, topRow, topPx: scrollTop - (virtual - firstRow * rowHeight), spacerPx: spacer };
}

/** The scrollTop that shows `row` a `placement` of the way down the view. */
export function scrollTopFor(row: number, rows: number, rowHeight: number, viewHeight: number, placement = 1 / 3): number {
  const { scale } = scaleOf(rows, rowHeight, viewHeight);
  return Math.max(0, row * rowHeight - viewHeight * placement) / scale;
}

/** Decoded text of characters [start, start + length) with code-point slicing. */
export class TextWindow {
  /** unitAt[i]: UTF-16 index of code point i; null when the text has no surrogate pairs. */
  private readonly unitAt: Uint32Array | null;
  readonly length: number;

  constructor(
    readonly start: number,
    readonly text: string,
  ) {
    if (!/[\ud800-\udbff]/.test(text)) {
      this.unitAt = null;
      this.length = text.length;
      return;
    }
    const map: number[] = [];
    for (let u = 0; u < text.length;) {
      map.push(u);
      const c = text.charCodeAt(u);
      u += c >= 0xd800 && c <= 0xdbff && u + 1 < text.length ? 2 : 1;
    }
    map.push(text.length);
    this.unitAt = Uint32Array.from(map);
    this.length = map.length - 1;
  }

  get end(): number {
    return this.start + this.length;
  }

  covers(start: number, end: number): boolean {
    return start >= this.start && end <= this.end;
  }

  /** Characters [a, b) of the document (clipped to the window). */
  slice(a: number, b: number): string {
    const from = Math.max(0, Math.min(this.length, a - this.start));
    const to = Math.max(from, Math.min(this.length, b - this.start));
    if (!this.unitAt) return this.text.slice(from, to);
    return this.text.slice(this.unitAt[from]!, this.unitAt[to]!);
  }
}

export interface Mark {
  start: number;
  end: number;
  /** CSS class; earlier in MARK_PRIORITY wins where marks overlap. */
  kind: "current" | "target" | "match" | "extent";
}
export const MARK_PRIORITY: readonly Mark["kind"][] = ["current", "target", "match", "extent"];

export interface Piece {
  text: string;
  kind?: Mark["kind"];
}

/** A row's text cut where marks begin and end, each piece with the strongest mark over it. */
export function pieces(window: TextWindow, rowStart: number, rowEnd: number, marks: readonly Mark[]): Piece[] {
  const inRow = marks.filter((m) => m.start < rowEnd && m.end > rowStart);
  if (!inRow.length) return [{ text: window.slice(rowStart, rowEnd) }];
  const cuts = new Set<number>([rowStart, rowEnd]);
  for (const m of inRow) {
    cuts.add(Math.max(rowStart, m.start));
    cuts.add(Math.min(rowEnd, m.end));
  }
  const points = [...cuts].sort((a, b) => a - b);
  const out: Piece[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const [a, b] = [points[i]!, points[i + 1]!];
    const over = inRow.filter((m) => m.start <= a && m.end >= b);
    const kind = MARK_PRIORITY.find((k) => over.some((m) => m.kind === k));
    out.push(kind ? { text: window.slice(a, b), kind } : { text: window.slice(a, b) });
  }
  return out;
}
