// The document viewer's map of a stored document (src/viewer): character offsets as Python
// counts them, in every encoding the REPL decodes, lines, PDF pages, wrapped rows and find.
import { describe, expect, it } from "vitest";
import { findAll } from "../../src/viewer/find.ts";
import { buildDocumentIndex } from "../../src/viewer/index-builder.ts";
import { RowModel, wordBreaks, wrapTable } from "../../src/viewer/rows.ts";
import { readChars, sequentialReader } from "../../src/viewer/text.ts";
import { pageMarkOf } from "../../src/ingest/formats/index.ts";
import { CHECKPOINT_CHARS } from "../../src/viewer/types.ts";

const cps = (s: string) => [...s];
/** Python's s[a:b] on a JS string. */
const pySlice = (s: string, a: number, b: number) => cps(s).slice(a, b).join("");

function utf16(text: string, littleEndian: boolean): Uint8Array {
  const out = new Uint8Array(2 + text.length * 2);
  const view = new DataView(out.buffer);
  view.setUint16(0, 0xfeff, littleEndian);
  for (let i = 0; i < text.length; i++) view.setUint16(2 + i * 2, text.charCodeAt(i), littleEndian);
  return out;
}
function utf32(text: string, littleEndian: boolean): Uint8Array {
  const points = cps(text).map((c) => c.codePointAt(0)!);
  const out = new Uint8Array(4 + points.length * 4);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0xfeff, littleEndian);
  points.forEach((p, i) => view.setUint32(4 + i * 4, p, littleEndian));
  return out;
}
const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));

// Long enough to cross several checkpoints; astral characters (2 UTF-16 units, 1 Python char).
const lines = Array.from({ length: 900 }, (_, i) =>
  i % 5 === 0 ? `😀 ${i}: Grüße, naïve café — 𝄞 ${"x".repeat(i % 37)}` : `line ${i}: plain text ${"y".repeat(i % 53)}`,
);
const TEXT = lines.join("\n");
const BMP = TEXT.replace(/[\u{10000}-\u{10FFFF}]/gu, "?"); // Latin-1 cannot hold astral characters
const LATIN = BMP.replace(/[^\u0000-\u00ff]/g, "?");

const cases: Array<[string, Uint8Array, string, string]> = [
  ["UTF-8", new TextEncoder().encode(TEXT), "utf-8", TEXT],
  ["UTF-8 with BOM", new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(TEXT)]), "utf-8-sig", TEXT],
  ["UTF-16 LE", utf16(TEXT, true), "utf-16", TEXT],
  ["UTF-16 BE", utf16(TEXT, false), "utf-16", TEXT],
  ["UTF-32 LE", utf32(TEXT, true), "utf-32", TEXT],
  ["Latin-1", latin1(LATIN), "latin-1", LATIN],
];

describe.each(cases)("a %s document", (_name, bytes, encoding, text) => {
  const blob = new Blob([bytes as BlobPart]);

  it("counts characters and lines as Python does, and reads any passage by offsets", async () => {
    const index = await buildDocumentIndex(blob, { encoding });
    expect(index.totalChars).toBe(cps(text).length);
    expect(index.totalChars).toBeGreaterThan(CHECKPOINT_CHARS * 3);
    expect(index.lineStarts.length).toBe(lines.length);
    const points = cps(text);
    const starts = [0, ...points.flatMap((c, i) => (c === "\n" ? [i + 1] : []))];
    expect(Array.from(index.lineStarts)).toEqual(starts);
    for (const [a, b] of [
      [0, 10],
      [CHECKPOINT_CHARS - 3, CHECKPOINT_CHARS + 5],
      [12_345, 12_400],
      [index.totalChars - 20, index.totalChars],
      [5, 5],
    ] as const) {
      expect(await readChars(blob, index, a, b)).toBe(pySlice(text, a, b));
    }
  });
});

describe("PDF pages, rows and find", () => {
  it("finds the page markers the ingest writes", async () => {
    const pdf = ["Cover", "Two\nlines", "", "Last page"].map((p, i) => `--- page ${i + 1} ---\n\n${p}`).join("\n\n");
    const index = await buildDocumentIndex(new Blob([pdf]), { pageMark: pageMarkOf("pdf") });
    expect(Array.from(index.pageLines)).toEqual([0, 4, 9, 13]);
    const plain = await buildDocumentIndex(new Blob([pdf]));
    expect(plain.pageLines.length).toBe(0);
  });

  it("wraps long lines into rows and maps characters to rows both ways", async () => {
    const text = `short\n${"a".repeat(250)}\n\nend`;
    const index = await buildDocumentIndex(new Blob([text]));
    const rows = new RowModel(index, 100);
    expect(rows.rows).toBe(1 + 3 + 1 + 1);
    expect(rows.row(2)).toEqual({ index: 2, line: 1, start: 106, end: 206, first: false });
    expect(rows.row(4)).toMatchObject({ line: 2, start: 257, end: 257, first: true });
    expect(rows.rowOf(6 + 199)).toBe(2);
    expect(rows.rowOf(6 + 250)).toBe(3); // the newline belongs to the line's last row
    expect(rows.lineOf(text.indexOf("end"))).toBe(3);
    expect(rows.rowOfLine(3)).toBe(5);
    expect(new RowModel(index, 1000).rows).toBe(4);
  });

  it("finds every occurrence, case-insensitively, in character offsets", async () => {
    const index = await buildDocumentIndex(new Blob([new TextEncoder().encode(TEXT)]));
    const found = await findAll(new Blob([new TextEncoder().encode(TEXT)]), index, "GRÜßE");
    const points = cps(TEXT);
    const expected = points.flatMap((_, i) =>
      points
        .slice(i, i + 5)
        .join("")
        .toLowerCase() === "grüße"
        ? [i]
        : [],
    );
    expect(expected.length).toBeGreaterThan(100);
    expect(Array.from(found.starts)).toEqual(expected);
    expect(found.length).toBe(5);
    const capped = await findAll(new Blob([TEXT]), index, "line", { max: 3 });
    expect(capped).toMatchObject({ truncated: true });
    expect(capped.starts.length).toBe(3);
  });

  it("finds a match that straddles two reads", async () => {
    // Reads are ~4M characters: put a match across the first boundary.
    const boundary = 1024 * CHECKPOINT_CHARS;
    const text = `${"z".repeat(boundary - 3)}NEEDLE${"z".repeat(100)}needle`;
    const blob = new Blob([text]);
    const index = await buildDocumentIndex(blob);
    const found = await findAll(blob, index, "needle");
    expect(Array.from(found.starts)).toEqual([boundary - 3, boundary - 3 + 6 + 100]);
  });
});

describe("rows of many lines, some wrapping", () => {
  it("agree with wrapping every line one by one", async () => {
    const lines = Array.from({ length: 400 }, (_, i) => "w".repeat((i * 37) % 230));
    const index = await buildDocumentIndex(new Blob([lines.join("\n")]));
    const rows = new RowModel(index, 50);
    // The slow, obvious model.
    const expected: Array<{ line: number; start: number; end: number; first: boolean }> = [];
    lines.forEach((l, line) => {
      const start = index.lineStarts[line]!;
      const n = Math.max(1, Math.ceil(l.length / 50));
      for (let k = 0; k < n; k++)
        expected.push({ line, start: start + k * 50, end: Math.min(start + l.length, start + (k + 1) * 50), first: k === 0 });
    });
    expect(rows.rows).toBe(expected.length);
    expected.forEach((e, r) => {
      expect(rows.row(r)).toEqual({ index: r, ...e });
      expect(rows.rowOf(e.start)).toBe(r);
    });
    lines.forEach((_, line) => expect(rows.row(rows.rowOfLine(line))).toMatchObject({ line, first: true }));
  });
});

describe("rows that break at spaces (issue 34 #8: a phone cut words mid-word)", () => {
  it("end after a space, and cut a word only when it alone is wider than the row", () => {
    const text = "The harbour master logged twelve ships before noon, extraordinarily";
    const rows = (t: string, width: number) =>
      [0, ...wordBreaks(t, width)].map((b, i, all) =>
        cps(t)
          .slice(b, all[i + 1])
          .join(""),
      );
    expect(rows(text, 20)).toEqual(["The harbour master ", "logged twelve ships ", "before noon, ", "extraordinarily"]);
    expect(rows("abcdefghijklmnopqrstuvwxyz", 10)).toEqual(["abcdefghij", "klmnopqrst", "uvwxyz"]);
    // Code points, as Python counts: an emoji is one character.
    expect(wordBreaks("😀😀😀 😀😀😀", 4)).toEqual([4]);
  });

  it("map rows and characters both ways, read a window at a time from the stored document", async () => {
    const words = Array.from({ length: 300 }, (_, i) => `wörd${i}`);
    const lines = ["short", words.join(" "), "", `${"x".repeat(45)} tail`, "end 😀"];
    const text = lines.join("\n");
    const blob = new Blob([text]);
    const index = await buildDocumentIndex(blob);
    const table = await wrapTable(index.lineStarts, index.totalChars, 40, sequentialReader(blob, index, 64));
    const rows = new RowModel(index, 40, table);
    const all = Array.from({ length: rows.rows }, (_, r) => rows.row(r));
    const points = cps(text);
    const shown = all.map((r) => points.slice(r.start, r.end).join(""));
    // Every row fits, and within a line every row but its last ends after a space.
    for (const row of shown) expect(row.length).toBeLessThanOrEqual(40);
    all.forEach((r, i) => {
      const next = all[i + 1];
      if (next && next.line === r.line && r.line !== 3) expect(shown[i], shown[i]).toMatch(/\s$/);
    });
    // Rows of a line put together give the line back; a word longer than a row is cut.
    lines.forEach((l, line) => expect(shown.filter((_, i) => all[i]!.line === line).join("")).toBe(l));
    expect(shown.filter((_, i) => all[i]!.line === 3)).toEqual(["x".repeat(40), "xxxxx tail"]);
    // Both ways: each row's first character is in that row, and so is each line's newline.
    all.forEach((r, i) => expect(rows.rowOf(r.start)).toBe(i));
    expect(rows.rowOf(index.lineStarts[2]! - 1)).toBe(rows.rowOfLine(2) - 1);
  });
});

describe("a large document read in several chunks", () => {
  it("indexes an ASCII part quickly and a multi-byte part exactly, across the chunk boundary", async () => {
    // Reads are 4 MiB: the first chunk is plain ASCII, the second has multi-byte characters.
    const ascii = "plain ascii line of text\n".repeat(Math.ceil((4 * 2 ** 20) / 25) + 10);
    const tail = Array.from({ length: 2000 }, (_, i) => `Zeile ${i}: Grüße 😀 aus Köln`).join("\n");
    const text = ascii + tail;
    const blob = new Blob([text]);
    const index = await buildDocumentIndex(blob, { encoding: "utf-8" });
    const points = cps(text);
    expect(index.totalChars).toBe(points.length);
    expect(index.lineStarts.length).toBe(text.split("\n").length);
    expect(index.lineStarts[index.lineStarts.length - 1]).toBe(points.length - cps(tail.slice(tail.lastIndexOf("\n") + 1)).length);
    const at = ascii.length - 7;
    expect(await readChars(blob, index, at, at + 40)).toBe(points.slice(at, at + 40).join(""));
    const deep = points.length - 100;
    expect(await readChars(blob, index, deep, deep + 50)).toBe(points.slice(deep, deep + 50).join(""));
  });
});
