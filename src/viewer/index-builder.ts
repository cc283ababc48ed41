// Building a document's map (DocumentIndex) from its Blob in one streaming pass over the bytes:
// no string of the document is ever built, so a 100 MB file costs one read, in a worker. The
// rules for what counts as a character follow Python's decoding (workers/python/rlm_runtime/documents.py,
// `decode_bytes`): a BOM decides UTF-8/16/32, else the codec the ingest found.
import { blobChunks } from "../ingest/blob-reader.ts";
import { detectBom } from "../ingest/decode.ts";
import { CHECKPOINT_CHARS, type DocumentIndex, type IndexRequest, type Unit } from "./types.ts";

/** Which unit reader the document needs, and how many BOM bytes Python skipped. */
export async function unitOf(blob: Blob, encoding: string | undefined): Promise<{ unit: Unit; bomBytes: number }> {
  const head = new Uint8Array(await blob.slice(0, 4).arrayBuffer());
  const bom = detectBom(head);
  if (bom) {
    const unit: Unit = bom.decoding === "utf-8" ? "utf-8" : bom.decoding;
    return { unit, bomBytes: bom.bomLength };
  }
  return { unit: encoding === "latin-1" ? "latin-1" : "utf-8", bomBytes: 0 };
}

/** A Uint32Array that grows by doubling. */
class Growable {
  data: Uint32Array;
  length = 0;
  constructor(capacity: number) {
    this.data = new Uint32Array(Math.max(16, capacity));
  }
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Uint32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  done(): Uint32Array {
    return this.data.slice(0, this.length);
  }
}

/** Scanning state carried from one chunk of bytes to the next. */
interface Scan {
  chars: number;
  /** Byte offset of the chunk being scanned. */
  base: number;
  checkpoints: number[];
  lines: Growable;
  pages: Growable | null;
  /** The page marker's bytes (empty when pages are not looked for). */
  pageMark: Uint8Array;
  /** Position in pageMark while a line's start is being matched, else -1. */
  mark: number;
  /** Bytes of a unit split across chunks (UTF-16/32). */
  pending: Uint8Array;
  /** UTF-16: the last unit was a high surrogate. */
  high: boolean;
}

/** No byte above 0x7F: one byte is one character (tested four bytes at a time). */
function isAscii(bytes: Uint8Array): boolean {
  const aligned = bytes.byteOffset % 4 === 0;
  const words = aligned ? new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length >> 2) : new Uint32Array(0);
  for (let i = 0; i < words.length; i++) if (words[i]! & 0x80808080) return false;
  for (let i = words.length * 4; i < bytes.length; i++) if (bytes[i]! & 0x80) return false;
  return true;
}

/**
 * One byte per character (ASCII UTF-8, Latin-1), no page markers to look for: checkpoints are
 * arithmetic and lines come from the native indexOf, so 100 MB is indexed in a fraction of the
 * time of the byte-by-byte loop.
 */
function scanSingleBytes(scan: Scan, bytes: Uint8Array): void {
  const first = scan.chars;
  const end = first + bytes.length;
  for (let c = Math.ceil(first / CHECKPOINT_CHARS) * CHECKPOINT_CHARS; c < end; c += CHECKPOINT_CHARS)
    scan.checkpoints.push(scan.base + (c - first));
  for (let at = bytes.indexOf(0x0a); at >= 0; at = bytes.indexOf(0x0a, at + 1)) scan.lines.push(first + at + 1);
  scan.chars = end;
}

function scanUtf8(scan: Scan, bytes: Uint8Array, latin1: boolean): void {
  if (!scan.pages && (latin1 || isAscii(bytes))) return scanSingleBytes(scan, bytes);
  let { chars, mark } = scan;
  const { base, checkpoints, lines, pages, pageMark } = scan;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (!latin1 && (b & 0xc0) === 0x80) continue; // a continuation byte: not a new character
    if (chars % CHECKPOINT_CHARS === 0) checkpoints.push(base + i);
    chars++;
    if (b === 0x0a) {
      lines.push(chars);
      mark = pages ? 0 : -1;
    } else if (mark >= 0) {
      if (b === pageMark[mark]) {
        if (++mark === pageMark.length) {
          pages!.push(lines.length - 1);
          mark = -1;
        }
      } else mark = -1;
    }
  }
  scan.chars = chars;
  scan.mark = mark;
}

/** UTF-16 and UTF-32: whole units; a unit split across chunks waits in `pending`. */
function scanWide(scan: Scan, chunk: Uint8Array, unit: Unit): void {
  const size = unit.startsWith("utf-16") ? 2 : 4;
  const little = unit.endsWith("le");
  let bytes = chunk;
  let base = scan.base;
  if (scan.pending.length) {
    bytes = new Uint8Array(scan.pending.length + chunk.length);
    bytes.set(scan.pending);
    bytes.set(chunk, scan.pending.length);
    base -= scan.pending.length;
  }
  const whole = bytes.length - (bytes.length % size);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < whole; i += size) {
    const u = size === 2 ? view.getUint16(i, little) : view.getUint32(i, little);
    const low = size === 2 && u >= 0xdc00 && u <= 0xdfff;
    if (low && scan.high) {
      scan.high = false; // the second half of a pair: same character
      continue;
    }
    scan.high = size === 2 && u >= 0xd800 && u <= 0xdbff;
    if (scan.chars % CHECKPOINT_CHARS === 0) scan.checkpoints.push(base + i);
    scan.chars++;
    if (u === 0x0a) scan.lines.push(scan.chars);
  }
  scan.pending = bytes.slice(whole);
}

/** The document's map; `onProgress` gets the fraction of bytes read. */
export async function buildDocumentIndex(
  blob: Blob,
  request: IndexRequest = {},
  onProgress?: (fraction: number) => void,
): Promise<DocumentIndex> {
  const { unit, bomBytes } = await unitOf(blob, request.encoding);
  const pageMark = new TextEncoder().encode(request.pageMark ?? "");
  const paged = pageMark.length > 0;
  const scan: Scan = {
    chars: 0,
    base: bomBytes,
    checkpoints: [],
    lines: new Growable(blob.size / 48),
    pages: paged && unit === "utf-8" ? new Growable(64) : null,
    pageMark,
    mark: paged ? 0 : -1,
    pending: new Uint8Array(0),
    high: false,
  };
  scan.lines.push(0);
  for await (const chunk of blobChunks(blob.slice(bomBytes))) {
    if (unit === "utf-8" || unit === "latin-1") scanUtf8(scan, chunk, unit === "latin-1");
    else scanWide(scan, chunk, unit);
    scan.base += chunk.length;
    onProgress?.(scan.base / Math.max(1, blob.size));
  }
  if (scan.pending.length) scan.chars++; // Python turns trailing odd bytes into one U+FFFD
  if (scan.chars % CHECKPOINT_CHARS === 0) scan.checkpoints.push(blob.size);
  return {
    unit,
    bomBytes,
    totalChars: scan.chars,
    byteLength: blob.size,
    checkpoints: Float64Array.from(scan.checkpoints),
    lineStarts: scan.lines.done(),
    pageLines: scan.pages ? scan.pages.done() : new Uint32Array(0),
  };
}
