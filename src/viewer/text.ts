// Reading a passage of a stored document by the character offsets Python uses: from the nearest
// checkpoint, only the bytes the passage needs are read and decoded, whatever the document's
// size or encoding. JS strings count UTF-16 units, Python counts code points; the helpers here
// convert, so a character outside the Basic Multilingual Plane (an emoji) moves nothing.
import { bomDecoder, decodeLatin1 } from "../ingest/decode.ts";
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
