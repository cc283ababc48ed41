// What the viewer renders: the rows in view (also past the browser's height limit), text
// sliced by Python's character offsets, and marks cut into a row.
import { describe, expect, it } from "vitest";
import { MAX_SCROLL_PX, TextWindow, layout, pieces, scrollTopFor } from "../../src/viewer/viewport.ts";

describe("layout", () => {
  it("renders the visible rows and a few around them", () => {
    const v = layout(1000, 20, 2000, 400, 5);
    expect(v).toMatchObject({ topRow: 100, firstRow: 95, count: 31, spacerPx: 20_000 });
    expect(v.topPx).toBe(95 * 20);
  });

  it("caps the scroll height for millions of rows and still reaches the last one", () => {
    const rows = 5_000_000;
    const top = layout(rows, 20, 0, 600);
    expect(top).toMatchObject({ topRow: 0, firstRow: 0, spacerPx: MAX_SCROLL_PX });
    const bottom = layout(rows, 20, MAX_SCROLL_PX - 600, 600, 0);
    expect(bottom.firstRow + bottom.count).toBe(rows);
    expect(bottom.topPx + bottom.count * 20).toBeCloseTo(MAX_SCROLL_PX, 5);
    const middle = scrollTopFor(2_500_000, rows, 20, 600, 0);
    expect(layout(rows, 20, middle, 600, 0).topRow).toBe(2_500_000);
  });
});

describe("TextWindow and pieces", () => {
  it("slices by code points, also around astral characters", () => {
    const w = new TextWindow(100, "a😀b𝄞cd");
    expect(w.length).toBe(6);
    expect(w.slice(101, 104)).toBe("😀b𝄞");
    expect(w.slice(98, 102)).toBe("a😀");
    expect(w.covers(100, 106)).toBe(true);
    expect(w.covers(100, 107)).toBe(false);
  });

  it("cuts a row where marks begin and end; the strongest mark wins where they overlap", () => {
    const w = new TextWindow(0, "The code is ZEBRA-4471 here.");
    const marks = [
      { start: 0, end: 28, kind: "extent" as const },
      { start: 12, end: 22, kind: "target" as const },
      { start: 12, end: 17, kind: "current" as const },
    ];
    expect(pieces(w, 0, 28, marks)).toEqual([
      { text: "The code is ", kind: "extent" },
      { text: "ZEBRA", kind: "current" },
      { text: "-4471", kind: "target" },
      { text: " here.", kind: "extent" },
    ]);
    expect(pieces(w, 0, 5, [])).toEqual([{ text: "The c" }]);
  });
});
