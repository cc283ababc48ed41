// Finding every occurrence of a query in a stored document, in character offsets Python would
// give. Runs in the viewer's worker: the document is decoded a few megabytes at a time, from
// checkpoint to checkpoint, and never held whole.
import { CHECKPOINT_CHARS, type DocumentIndex, type FindOptions, type FindResult } from "./types.ts";
import { codePointsIn, decodeUnits } from "./text.ts";

const CHECKPOINTS_PER_READ = 1024; // about 4M characters per read

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff;

export async function findAll(blob: Blob, index: DocumentIndex, query: string, options: FindOptions = {}): Promise<FindResult> {
  const max = options.max ?? 10_000;
  const length = [...query].length;
  const starts: number[] = [];
  if (!query) return { starts: new Float64Array(0), length, truncated: false };
  const pattern = new RegExp(escapeRegExp(query), options.caseSensitive ? "gu" : "giu");
  // The end of the previous read is searched again with the next one, so a match cut by the
  // boundary is found; `carryChar` is the offset of the carried text's first character.
  let carry = "";
  let carryChar = 0;
  const n = index.checkpoints.length;
  for (let k = 0; k < n && starts.length < max; k += CHECKPOINTS_PER_READ) {
    const from = index.checkpoints[k]!;
    const to = k + CHECKPOINTS_PER_READ < n ? index.checkpoints[k + CHECKPOINTS_PER_READ]! : index.byteLength;
    const text = carry + decodeUnits(new Uint8Array(await blob.slice(from, to).arrayBuffer()), index.unit);
    const firstChar = carry ? carryChar : k * CHECKPOINT_CHARS;
    let units = 0;
    let chars = 0;
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m && starts.length < max; m = pattern.exec(text)) {
      chars += codePointsIn(text.slice(units, m.index), m.index - units);
      units = m.index;
      const at = firstChar + chars;
      if (!starts.length || at > starts[starts.length - 1]!) starts.push(at); // carried matches were reported already
      if (m[0].length === 0) pattern.lastIndex++;
    }
    let keep = Math.max(0, text.length - (query.length * 2 + 2));
    if (keep > 0 && isLowSurrogate(text.charCodeAt(keep))) keep--; // never split a surrogate pair
    carry = text.slice(keep);
    carryChar = firstChar + codePointsIn(text, keep);
  }
  return { starts: Float64Array.from(starts), length, truncated: starts.length >= max };
}
