// Decoding and measuring text exactly as the Python REPL will (decode_bytes in workers/python/rlm_runtime/documents.py).
// The cross-check against real Python lives in tests/node/ingest-python-parity.test.ts.
import { describe, expect, it } from "vitest";
import { countCodePoints, decodeBytes, decodeLatin1, detectBom, toWellFormed } from "../../src/ingest/decode.ts";
import { TextMeasurer, measureBlob, measureBytes } from "../../src/ingest/measure.ts";
import { PREVIEW_MAX_CHARS, PREVIEW_MAX_LINES, previewOf } from "../../src/ingest/preview.ts";
import { emojiAcrossChunkBoundary, lateInvalidUtf8, textFixtures, utf16 } from "../fixtures/docs/index.ts";

describe("decodeBytes", () => {
  for (const f of textFixtures()) {
    it(`decodes ${f.name} as ${f.encoding}`, () => {
      const decoded = decodeBytes(f.bytes);
      expect(decoded.encoding).toBe(f.encoding);
      expect(decoded.text).toBe(f.text);
    });
  }

  it("checks the UTF-32 LE mark before the UTF-16 LE mark it begins with", () => {
    expect(detectBom(Uint8Array.from([0xff, 0xfe, 0x00, 0x00, 0x41]))?.encoding).toBe("utf-32");
    expect(detectBom(Uint8Array.from([0xff, 0xfe, 0x41, 0x00]))?.encoding).toBe("utf-16");
    expect(detectBom(Uint8Array.from([0x41, 0xff, 0xfe]))).toBeNull();
  });

  it("decodes Latin-1 as ISO-8859-1 (byte n is U+00nn), not as windows-1252", () => {
    // Browsers' TextDecoder("latin1") is windows-1252 (0x80 -> U+20AC); Python's latin-1 is not.
    expect(decodeLatin1(Uint8Array.from([0x80, 0x9f, 0xff]))).toBe("\u0080\u009f\u00ff");
  });

  it("replaces malformed UTF-16 after a BOM like Python (lone surrogates, odd trailing byte)", () => {
    const lone = Uint8Array.from([0xff, 0xfe, 0x3d, 0xd8, 0x41, 0x00, 0x42]);
    // High surrogate without its low half -> U+FFFD, "A", then one U+FFFD for the odd byte.
    expect(decodeBytes(lone).text).toBe("\ufffdA\ufffd");
  });

  it("replaces out-of-range UTF-32 code points and truncated units with U+FFFD", () => {
    const bytes = Uint8Array.from([0xff, 0xfe, 0, 0, 0x41, 0, 0, 0, 0, 0xd8, 0, 0, 0, 0, 0x11, 0, 0x42, 0]);
    expect(decodeBytes(bytes).text).toBe("A\ufffd\ufffd\ufffd");
  });
});

describe("countCodePoints", () => {
  it("counts a character outside the BMP once, as Python's len() does", () => {
    expect("😀".length).toBe(2);
    expect(countCodePoints("😀")).toBe(1);
    expect(countCodePoints("a😀b𝄞")).toBe(4);
    expect(countCodePoints("plain ascii")).toBe(11);
  });

  it("counts each code point of a ZWJ sequence, like Python", () => {
    expect(countCodePoints("👩‍👩‍👧")).toBe(5);
  });
});

describe("toWellFormed", () => {
  it("turns lone surrogates into U+FFFD and keeps pairs", () => {
    expect(toWellFormed("a\ud800b\udc00c😀")).toBe("a\ufffdb\ufffdc😀");
  });
});

describe("TextMeasurer", () => {
  for (const f of textFixtures()) {
    it(`measures ${f.name}: ${f.chars} chars whether fed whole or a byte at a time`, () => {
      expect(measureBytes(f.bytes)).toMatchObject({ encoding: f.encoding, chars: f.chars });
      const measurer = new TextMeasurer();
      for (let i = 0; i < f.bytes.length; i++) measurer.push(f.bytes.subarray(i, i + 1));
      const split = measurer.finish();
      expect(split.encoding).toBe(f.encoding);
      expect(split.chars).toBe(f.chars);
      expect(split.preview).toBe(previewOf(f.text));
    });
  }

  it("falls back to Latin-1 for the whole file when only the last byte of 5 MB is invalid", async () => {
    const f = lateInvalidUtf8();
    const measured = await measureBlob(new Blob([f.bytes as BlobPart]));
    expect(measured.encoding).toBe("latin-1");
    expect(measured.chars).toBe(f.bytes.length);
    expect(measured.preview).toBe(previewOf(f.text));
  });

  it("keeps a 4-byte character whole across the 4 MB read boundary", async () => {
    const f = emojiAcrossChunkBoundary();
    const measured = await measureBlob(new Blob([f.bytes as BlobPart]));
    expect(measured).toMatchObject({ encoding: "utf-8", chars: f.chars });
    expect(f.bytes.length).toBeGreaterThan(4 * 1024 * 1024);
  });

  it("counts UTF-16 surrogate pairs split across reads once", () => {
    const text = "x😀".repeat(1000);
    const bytes = Uint8Array.from([0xfe, 0xff, ...utf16(text, false)]);
    const measurer = new TextMeasurer();
    for (let i = 0; i < bytes.length; i += 7) measurer.push(bytes.subarray(i, i + 7));
    expect(measurer.finish()).toMatchObject({ encoding: "utf-16", chars: 2000 });
  });

  it("reports progress while streaming a Blob", async () => {
    const seen: number[] = [];
    const blob = new Blob([new Uint8Array(9 * 1024 * 1024).fill(0x61)]);
    await measureBlob(blob, (done) => seen.push(done));
    expect(seen.length).toBe(3);
    expect(seen.at(-1)).toBe(blob.size);
  });

  it("measures a 100 MB text file by streaming, in well under a few seconds", async () => {
    const line = "2025-01-01T00:00:00Z INFO request handled in 12ms — ok ✓\n";
    const bytes = new TextEncoder().encode(line.repeat(Math.ceil((100 * 1024 * 1024) / line.length)));
    const started = performance.now();
    const measured = await measureBlob(new Blob([bytes]));
    const elapsed = performance.now() - started;
    expect(measured.chars).toBe(countCodePoints(line) * Math.ceil((100 * 1024 * 1024) / line.length));
    expect(elapsed).toBeLessThan(10_000);
  });
});

describe("previews", () => {
  it("stop after 20 lines", () => {
    const text = Array.from({ length: 50 }, (_, i) => `line ${i}`).join("\n");
    const preview = previewOf(text);
    expect(preview.split("\n")).toHaveLength(PREVIEW_MAX_LINES);
    expect(preview.endsWith("line 19")).toBe(true);
  });

  it("stop at 2,000 characters without splitting a surrogate pair", () => {
    const text = `${"a".repeat(PREVIEW_MAX_CHARS - 1)}😀 and more`;
    const preview = previewOf(text);
    expect(preview).toBe("a".repeat(PREVIEW_MAX_CHARS - 1));
    expect(previewOf("b".repeat(5000))).toHaveLength(PREVIEW_MAX_CHARS);
  });
});
