// Reading a passage of a stored document by the character offsets Python uses: from the nearest
// checkpoint, only the bytes the passage needs are read and decoded, whatever the document's
// size or encoding. JS strings count UTF-16 units, Python counts code points; the helpers here
// convert, so a character outside the Basic Multilingual Plane (an emoji) moves nothing.
import { bomDecoder, decodeLatin1 } from "../ingest/decode.ts";
import { unitOf } from "./index-builder.ts";
import { CHECKPOINT_CHARS, type DocumentIndex, type Unit } from "./types.ts";

export function decodeUnits(bytes: Uint8Array, unit: Unit): string {
  if (unit === "latin-1") return decodeLatin1(bytes);
  return bomDecoder(unit).decode(bytes, true);
}

/** The UTF-16 index in `text` of code point `n` (text.length when it has fewer). */
export function unitIndexOf(text: string, n: number): number {
  let units = 0;
  for (let cps = 0; cps < n && units < text.length; cps++) {
    const c = text.charCodeAt(units);
    units += c >= 0xd800 && c <= 0xdbff && units + 1 < text.length ? 2 : 1;
  }
  return units;
}

/** Code points in text[0:units]. */
export function codePointsIn(text: string, units: number): number {
  // Most text has no characters outside the Basic Multilingual Plane: a native test says so.
  if (!/[\udc00-\udfff]/.test(units >= text.length ? text : text.slice(0, units))) return Math.min(units, text.length);
  let n = 0;
  for (let i = 0; i < units; i++) {
    const c = text.charCodeAt(i);
    if (!(c >= 0xdc00 && c <= 0xdfff && i > 0 && text.charCodeAt(i - 1) >= 0xd800 && text.charCodeAt(i - 1) <= 0xdbff)) n++;
  }
  return n;
}

/** The byte range holding characters [start, end): from checkpoint to checkpoint. */
export function byteSpan(index: DocumentIndex, start: number, end: number): { from: number; to: number; firstChar: number } {
  const k = Math.floor(Math.max(0, start) / CHECKPOINT_CHARS);
  const kEnd = Math.ceil(Math.min(end, index.totalChars) / CHECKPOINT_CHARS);
  const from = index.checkpoints[Math.min(k, index.checkpoints.length - 1)] ?? index.bomBytes;
  const to = kEnd < index.checkpoints.length ? index.checkpoints[kEnd]! : index.byteLength;
  return { from, to, firstChar: Math.min(k, index.checkpoints.length - 1) * CHECKPOINT_CHARS };
}

/** Characters [start, end) of the document as a JS string. */
export async function readChars(blob: Blob, index: DocumentIndex, start: number, end: number): Promise<string> {
  const s = Math.max(0, Math.min(start, index.totalChars));
  const e = Math.max(s, Math.min(end, index.totalChars));
  if (e === s) return "";
  const { from, to, firstChar } = byteSpan(index, s, e);
  const text = decodeUnits(new Uint8Array(await blob.slice(from, to).arrayBuffer()), index.unit);
  const a = unitIndexOf(text, s - firstChar);
  const b = a + unitIndexOf(text.slice(a), e - s);
  return text.slice(a, b);
}

// --- either end of a document, with no index (compare mode) ------------------------------------
// Compare mode cuts a document to the window from both ends without building its map: the same
// unit and BOM rule as the index (unitOf), the same decoder (decodeUnits), and the same
// code-point counting, so what it reads is Python's context[:n] and context[-n:]
// (tests/node/viewer-parity.test.ts). Only the bytes the characters can need are read.

/** The most bytes one character takes in each unit. */
const MAX_BYTES: Record<Unit, number> = { "utf-8": 4, "latin-1": 1, "utf-16le": 4, "utf-16be": 4, "utf-32le": 4, "utf-32be": 4 };
/** Bytes per code unit: a slice must start on a unit boundary. */
const UNIT_BYTES: Record<Unit, number> = { "utf-8": 1, "latin-1": 1, "utf-16le": 2, "utf-16be": 2, "utf-32le": 4, "utf-32be": 4 };

/** The first `n` characters (code points, as Python counts) of a stored document. */
export async function readHeadChars(blob: Blob, encoding: string | undefined, n: number): Promise<string> {
  if (n <= 0) return "";
  const { unit, bomBytes } = await unitOf(blob, encoding);
  // n characters fit in n × MAX_BYTES bytes; a character cut at the end of the read comes after them.
  const bytes = new Uint8Array(await blob.slice(bomBytes, bomBytes + n * MAX_BYTES[unit]).arrayBuffer());
  const text = decodeUnits(bytes, unit);
  return text.slice(0, unitIndexOf(text, n));
}

/** The last `n` characters (code points) of a stored document. */
export async function readTailChars(blob: Blob, encoding: string | undefined, n: number): Promise<string> {
  if (n <= 0) return "";
  const { unit, bomBytes } = await unitOf(blob, encoding);
  let from = Math.max(bomBytes, blob.size - n * MAX_BYTES[unit]);
  from -= (from - bomBytes) % UNIT_BYTES[unit];
  const bytes = new Uint8Array(await blob.slice(from).arrayBuffer());
  const text = decodeUnits(from > bomBytes ? bytes.subarray(partialLead(bytes, unit)) : bytes, unit);
  return text.slice(unitIndexOfLast(text, n));
}

/** Bytes at the start of a slice that belong to a character begun before it. */
function partialLead(bytes: Uint8Array, unit: Unit): number {
  if (unit === "utf-8") {
    let i = 0;
    while (i < 3 && i < bytes.length && (bytes[i]! & 0xc0) === 0x80) i++;
    return i;
  }
  // A low surrogate first: its high half was before the slice.
  const high = unit === "utf-16le" ? bytes[1] : unit === "utf-16be" ? bytes[0] : undefined;
  return high !== undefined && high >= 0xdc && high <= 0xdf ? 2 : 0;
}

/** The UTF-16 index where the last `n` code points of `text` begin (0 when it has fewer). */
function unitIndexOfLast(text: string, n: number): number {
  let i = text.length;
  for (let cps = 0; cps < n && i > 0; cps++) {
    const c = text.charCodeAt(i - 1);
    const pair = c >= 0xdc00 && c <= 0xdfff && i >= 2 && text.charCodeAt(i - 2) >= 0xd800 && text.charCodeAt(i - 2) <= 0xdbff;
    i -= pair ? 2 : 1;
  }
  return i;
}

/**
 * Reads character ranges in ascending order (the long lines of a document, for wrapping) a
 * megabyte-sized window at a time: one Blob read per window, not one per line (a log of 100,000
 * long lines took a read each).
 */
export function sequentialReader(blob: Blob, index: DocumentIndex, windowChars = 1 << 20): (start: number, end: number) => Promise<string> {
  let from = 0;
  let to = 0;
  let text = "";
  // A cursor in `text`: code point `cp` (from `from`) is at UTF-16 index `unit`.
  let cp = 0;
  let unit = 0;
  const unitAt = (target: number): number => {
    if (target < cp) [cp, unit] = [0, 0];
    while (cp < target && unit < text.length) {
      const c = text.charCodeAt(unit);
      unit += c >= 0xd800 && c <= 0xdbff && unit + 1 < text.length ? 2 : 1;
      cp++;
    }
    return unit;
  };
  return async (start, end) => {
    if (start < from || end > to) {
      from = start;
      to = Math.min(index.totalChars, Math.max(end, start + windowChars));
      text = await readChars(blob, index, from, to);
      [cp, unit] = [0, 0];
    }
    const a = unitAt(start - from);
    return text.slice(a, unitAt(end - from));
  };
}
