// The viewer and Python must agree on every offset: a source range recorded by the REPL, read
// back from the same bytes by the viewer's index, is the same text on the same line, whatever
// the encoding (UTF-8 with and without BOM, UTF-16, UTF-32, Latin-1) and with astral characters.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReplClient } from "../../src/repl/client.ts";
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

function encode(text: string, kind: string): Uint8Array {
  if (kind === "latin-1") return Uint8Array.from(text, (c) => c.charCodeAt(0));
  if (kind === "utf-8") return new TextEncoder().encode(text);
  if (kind === "utf-8-sig") return new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text)]);
  if (kind === "utf-16") {
    const out = new Uint8Array(2 + text.length * 2);
    const view = new DataView(out.buffer);
    view.setUint16(0, 0xfeff, false);
    for (let i = 0; i < text.length; i++) view.setUint16(2 + i * 2, text.charCodeAt(i), false);
    return out;
  }
  const points = [...text].map((c) => c.codePointAt(0)!);
  const out = new Uint8Array(4 + points.length * 4);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0xfeff, true);
  points.forEach((p, i) => view.setUint32(4 + i * 4, p, true));
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
