// The viewer and Python must agree on every offset: a source range recorded by the REPL, read
// back from the same bytes by the viewer's index, is the same text on the same line, whatever
// the encoding (UTF-8 with and without BOM, UTF-16, UTF-32, Latin-1) and with astral characters.
// Compare mode reads the same bytes from either end with the same decoder: the first and last n
// characters it reads are Python's context[:n] and context[-n:] (issue 25 §3).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReplClient } from "../../src/repl/client.ts";
import { documentSource } from "../../src/app/documents.ts";
import { readContext } from "../../src/core/repl-probes.ts";
import { textMeta as meta } from "../fixtures/document-meta.ts";
import { buildDocumentIndex } from "../../src/viewer/index-builder.ts";
import { RowModel } from "../../src/viewer/rows.ts";
import { readChars } from "../../src/viewer/text.ts";
import { startRepl } from "./helpers.ts";

let repl: ReplClient;
beforeAll(async () => {
  repl = await startRepl("sab");
});
afterAll(() => repl?.close());

const body = (astral: boolean) =>
  Array.from({ length: 3000 }, (_, i) =>
    i === 2345
      ? "Le code secret est KÉPI-77, dit-elle."
      : `${astral && i % 3 === 0 ? "🚀 " : ""}ligne ${i}: été, déjà vu ${"·".repeat(i % 11)}`,
  ).join("\n");

/** `kind` is Python's codec name; "-le"/"-be" picks the byte order of UTF-16/32 (default: BE for 16, LE for 32). */
function encode(text: string, kind: string): Uint8Array {
  if (kind === "latin-1") return Uint8Array.from(text, (c) => c.charCodeAt(0));
  if (kind === "utf-8") return new TextEncoder().encode(text);
  if (kind === "utf-8-sig") return new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text)]);
  if (kind.startsWith("utf-16")) {
    const little = kind === "utf-16-le";
    const out = new Uint8Array(2 + text.length * 2);
    const view = new DataView(out.buffer);
    view.setUint16(0, 0xfeff, little);
    for (let i = 0; i < text.length; i++) view.setUint16(2 + i * 2, text.charCodeAt(i), little);
    return out;
  }
  const little = kind !== "utf-32-be";
  const points = [...text].map((c) => c.codePointAt(0)!);
  const out = new Uint8Array(4 + points.length * 4);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0xfeff, little);
  points.forEach((p, i) => view.setUint32(4 + i * 4, p, little));
  return out;
}

describe.each(["utf-8", "utf-8-sig", "utf-16", "utf-32", "latin-1"])("a %s document", (kind) => {
  it("gives the same passage and line in Python and in the viewer", async () => {
    // "·" (U+00B7) exists in Latin-1; rockets do not.
    const text = body(kind !== "latin-1");
    const blob = new Blob([encode(text, kind) as BlobPart]);
    const info = await repl.loadDocuments([{ name: "doc.txt", data: blob }]);
    expect(info.encodings).toEqual([kind]);
    const r = await repl.runCell("import re\nm = re.search(r'KÉPI-\\d+', context)\nprint(context[m.start() - 30:m.end() + 10])");
    const [match] = (r.sources ?? []).filter((s) => s.kind === "match");
    const index = await buildDocumentIndex(blob, { encoding: kind });
    expect(await readChars(blob, index, match!.start, match!.end)).toBe("KÉPI-77");
    expect(new RowModel(index, 200).lineOf(match!.start) + 1).toBe(match!.line);
    const [printed] = (r.sources ?? []).filter((s) => s.kind === "print");
    expect(await readChars(blob, index, printed!.start, printed!.end)).toBe(r.stdout.replace(/\n$/, ""));
  });
});

describe.each(["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-32", "utf-32-be", "latin-1"])(
  "compare mode's reading of a %s document",
  (kind) => {
    it("gives Python's first and last n characters, for any n", async () => {
      const text = body(kind !== "latin-1");
      const blob = new Blob([encode(text, kind) as BlobPart]);
      const info = await repl.loadDocuments([{ name: "doc.txt", data: blob }]);
      const encoding = info.encodings![0]!;
      const chars = info.total_chars;
      const src = documentSource([{ sessionId: "s", path: "doc.txt", blob }], [meta("doc.txt", chars, encoding)]);
      expect(src.totalChars).toBe(chars);
      // Odd counts land in the middle of multi-byte characters and surrogate pairs.
      for (const n of [1, 2, 3, 7, 100, 4097, chars - 1, chars]) {
        expect(await src.head(n), `head ${n}`).toBe(await readContext(repl, { doc: null, start: 0, end: n }));
        expect(await src.tail(n), `tail ${n}`).toBe(await readContext(repl, { doc: null, start: chars - n, end: chars }));
      }
    });
  },
);
