// Bytes to text exactly as the Python REPL decodes them (`decode_bytes` in
// workers/python/rlm_runtime/documents.py): a byte-order mark first (UTF-32, UTF-8, UTF-16, in Python's
// order), else strict UTF-8, else Latin-1. Plain-text files reach Python as their original
// bytes, so this decoding must agree with Python's character for character; otherwise the sizes
// shown to the user and to the model's budgets would not match `len(context)`.
import type { PythonEncoding } from "./types.ts";

/** The decoder the bytes after the BOM need. */
export type ByteDecoding = "utf-8" | "utf-16le" | "utf-16be" | "utf-32le" | "utf-32be";

export interface BomMatch {
  encoding: PythonEncoding;
  decoding: ByteDecoding;
  bomLength: number;
}

// Order matters and is Python's: the UTF-32 LE mark FF FE 00 00 begins with the UTF-16 LE mark
// FF FE, so UTF-32 must be tried first.
const BOMS: ReadonlyArray<{ bytes: readonly number[]; match: BomMatch }> = [
  { bytes: [0xff, 0xfe, 0x00, 0x00], match: { encoding: "utf-32", decoding: "utf-32le", bomLength: 4 } },
  { bytes: [0x00, 0x00, 0xfe, 0xff], match: { encoding: "utf-32", decoding: "utf-32be", bomLength: 4 } },
  { bytes: [0xef, 0xbb, 0xbf], match: { encoding: "utf-8-sig", decoding: "utf-8", bomLength: 3 } },
  { bytes: [0xff, 0xfe], match: { encoding: "utf-16", decoding: "utf-16le", bomLength: 2 } },
  { bytes: [0xfe, 0xff], match: { encoding: "utf-16", decoding: "utf-16be", bomLength: 2 } },
];

/** The byte-order mark `head` starts with, if any. `head` needs at least 4 bytes when available. */
export function detectBom(head: Uint8Array): BomMatch | null {
  for (const { bytes, match } of BOMS) {
    if (head.length >= bytes.length && bytes.every((b, i) => head[i] === b)) return match;
  }
  return null;
}

/** Turns a byte stream into text piece by piece; `final` flushes what a split character left. */
export interface ChunkDecoder {
  decode(chunk: Uint8Array, final: boolean): string;
}

/**
 * Python's "utf-32" codec with errors="replace": each 4-byte unit that is a surrogate or above
 * U+10FFFF becomes one U+FFFD, and 1–3 trailing bytes become one U+FFFD. (TextDecoder has no
 * UTF-32: the Encoding Standard dropped it.)
 */
class Utf32Decoder implements ChunkDecoder {
  private pending: Uint8Array = new Uint8Array(0);
  constructor(private readonly littleEndian: boolean) {}

  decode(chunk: Uint8Array, final: boolean): string {
    let bytes = chunk;
    if (this.pending.length) {
      bytes = new Uint8Array(this.pending.length + chunk.length);
      bytes.set(this.pending);
      bytes.set(chunk, this.pending.length);
    }
    const whole = bytes.length - (bytes.length % 4);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const parts: string[] = [];
    let codes: number[] = [];
    for (let i = 0; i < whole; i += 4) {
      const cp = view.getUint32(i, this.littleEndian);
      codes.push(cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? 0xfffd : cp);
      if (codes.length === 8192) {
        parts.push(String.fromCodePoint(...codes));
        codes = [];
      }
    }
    if (codes.length) parts.push(String.fromCodePoint(...codes));
    this.pending = bytes.slice(whole);
    if (final && this.pending.length) {
      parts.push("\ufffd");
      this.pending = new Uint8Array(0);
    }
    return parts.join("");
  }
}

/** Python's "latin-1": byte n is U+00nn. (TextDecoder's "latin1" is really windows-1252.) */
export function decodeLatin1(bytes: Uint8Array): string {
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += 8192) {
    parts.push(String.fromCharCode(...bytes.subarray(i, i + 8192)));
  }
  return parts.join("");
}

class WebDecoder implements ChunkDecoder {
  private readonly decoder: TextDecoder;
  constructor(label: string, fatal: boolean) {
    // ignoreBOM: the caller already skipped the one mark Python strips; a second U+FEFF is text.
    this.decoder = new TextDecoder(label, { fatal, ignoreBOM: true });
  }
  decode(chunk: Uint8Array, final: boolean): string {
    return this.decoder.decode(chunk, { stream: !final });
  }
}

/** A decoder for the bytes after a BOM, replacing malformed input with U+FFFD like Python. */
export function bomDecoder(decoding: ByteDecoding): ChunkDecoder {
  if (decoding === "utf-32le" || decoding === "utf-32be") return new Utf32Decoder(decoding === "utf-32le");
  return new WebDecoder(decoding, false);
}

/** Strict UTF-8: `decode` throws a TypeError on the first malformed sequence. */
export function strictUtf8Decoder(): ChunkDecoder {
  return new WebDecoder("utf-8", true);
}

/**
 * Python's `len()` of a JS string produced by a decoder: code points, so a character outside the
 * Basic Multilingual Plane (two UTF-16 units in JS) counts once. Decoder output is well formed,
 * so every low surrogate belongs to a pair and marks one character to subtract.
 */
export function countCodePoints(text: string): number {
  if (!/[\udc00-\udfff]/.test(text)) return text.length;
  let lows = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) lows++;
  }
  return text.length - lows;
}

/** Replace lone surrogates with U+FFFD, as UTF-8 encoding (and so Python) will. */
export function toWellFormed(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");
}

export interface DecodedText {
  text: string;
  encoding: PythonEncoding;
}

/** Decode a whole byte array the way the REPL will. For small inputs; big ones use TextMeasurer. */
export function decodeBytes(bytes: Uint8Array): DecodedText {
  const bom = detectBom(bytes);
  if (bom) return { text: bomDecoder(bom.decoding).decode(bytes.subarray(bom.bomLength), true), encoding: bom.encoding };
  try {
    return { text: strictUtf8Decoder().decode(bytes, true), encoding: "utf-8" };
  } catch {
    return { text: decodeLatin1(bytes), encoding: "latin-1" };
  }
}
