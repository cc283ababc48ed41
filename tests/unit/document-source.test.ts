// Compare mode reads the session's documents from both ends without decoding them whole; what
// it reads must be exactly what Python would see at those ends.
import { describe, expect, it } from "vitest";
import { documentSource } from "../../src/app/documents.ts";
import { fitDocument, textSource } from "../../src/core/direct.ts";
import { textMeta as meta } from "../fixtures/document-meta.ts";
import { utf16 } from "../fixtures/docs/text.ts";

describe("documentSource", () => {
  it("reads head and tail of one UTF-8 document without breaking characters", async () => {
    const text = "é".repeat(1000) + "middle" + "😀".repeat(1000);
    const src = documentSource([{ sessionId: "s", path: "a.txt", blob: new Blob([text]) }], [meta("a.txt", [...text].length)]);
    expect(src.totalChars).toBe(2006);
    expect(await src.head(5)).toBe("ééééé");
    // The tail is read from a byte offset that may split a 4-byte emoji; no U+FFFD may leak in.
    const tail = await src.tail(7);
    expect(tail).not.toContain("\uFFFD");
    expect(tail.endsWith("😀😀😀")).toBe(true);
  });

  it("joins several documents under headers, in order, from both ends", async () => {
    const docs = [
      { sessionId: "s", path: "one.txt", blob: new Blob(["first file"]) },
      { sessionId: "s", path: "two.txt", blob: new Blob([new Uint8Array([0x63, 0x61, 0x66, 0xe9])]) }, // Latin-1 "café"
    ];
    const src = documentSource(docs, [meta("one.txt", 10), meta("two.txt", 4, "latin-1")]);
    // Joined as the direct answer joins Python's `context` (context-source.ts), so both methods see the same text.
    const whole = "=== one.txt ===\nfirst file\n\n=== two.txt ===\ncafé";
    expect(src.totalChars).toBe(whole.length);
    expect(await src.head(1000)).toBe(whole);
    expect(await src.tail(6)).toBe("=\ncafé");
    // Cutting from the blobs gives exactly what cutting the whole text in memory gives.
    for (const n of [5, 20, 40]) expect(await fitDocument(src, n)).toEqual(await fitDocument(textSource(whole), n));
    expect((await fitDocument(src, 20)).note).toContain("characters in the middle were cut");
  });

  // The big-endian case is issue 25 §3: its tail was decoded as little-endian.
  it.each([
    ["UTF-16LE", [0xff, 0xfe], true, "hello world"],
    ["UTF-16BE", [0xfe, 0xff], false, `hello ${"long middle ".repeat(20)}world`],
  ])("decodes a %s document from either end", async (_name, bom, littleEndian, body) => {
    const blob = new Blob([new Uint8Array(bom), utf16(body, littleEndian)]);
    const src = documentSource([{ sessionId: "s", path: "u.txt", blob }], [meta("u.txt", body.length, "utf-16")]);
    expect(await src.head(5)).toBe("hello");
    expect(await src.tail(5)).toBe("world");
  });
});
