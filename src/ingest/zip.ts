// Walking a zip archive without trusting it. The central directory (at the end of the file) is
// read first, so every entry's declared sizes are checked against the limits before a byte is
// inflated; entries are then read one at a time straight from the Blob, and inflation stops the
// moment an entry produces more than it declared (a zip bomb that lies in its headers).
// fflate does the inflating; the container format is parsed here because fflate's unzip needs
// the whole archive in memory and sizes its output buffers from the (untrusted) headers.
import { Inflate } from "fflate";
import type { WindowedReader } from "./blob-reader.ts";
import { crc32 } from "./crc32.ts";
import { CorruptFileError, EncryptedFileError, LimitError, UnsupportedFormatError, formatBytes } from "./errors.ts";

export interface ZipEntry {
  /** The name as stored (decoded), not yet normalized. */
  name: string;
  isDirectory: boolean;
  /** 0 stored, 8 deflate; others are not supported. */
  method: number;
  encrypted: boolean;
  compressedSize: number;
  uncompressedSize: number;
  crc32: number;
  localHeaderOffset: number;
}

export interface ZipDirectory {
  /** At most `maxEntries` entries, in central-directory order. */
  entries: ZipEntry[];
  /** How many entries the archive declares. */
  declaredEntries: number;
  /** True when `maxEntries` cut the listing short. */
  truncated: boolean;
}

const SIG_LOCAL = 0x04034b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_END = 0x06054b50;
const SIG_END64 = 0x06064b50;
const SIG_END64_LOCATOR = 0x07064b50;
const END_MIN = 22;
const MAX_COMMENT = 0xffff;

/** A 64-bit little-endian count as a number (exact below 2^53, far beyond any real archive). */
function u64(view: DataView, at: number): number {
  return view.getUint32(at, true) + view.getUint32(at + 4, true) * 2 ** 32;
}

function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function corrupt(detail: string): CorruptFileError {
  return new CorruptFileError(`The zip data is not readable (${detail}); the archive may be damaged or incomplete.`);
}

// Code page 437, the zip default for names without the UTF-8 flag: bytes 0x80–0xFF.
const CP437_HIGH =
  "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀" +
  "αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0";

function decodeName(bytes: Uint8Array, utf8Flag: boolean): string {
  if (utf8Flag) return new TextDecoder("utf-8").decode(bytes);
  try {
    // Many tools write UTF-8 names without setting the flag; valid UTF-8 is almost never CP437.
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    let out = "";
    for (const b of bytes) out += b < 0x80 ? String.fromCharCode(b) : (CP437_HIGH[b - 0x80] ?? "?");
    return out;
  }
}

async function findEnd(reader: WindowedReader): Promise<{ view: DataView; at: number; tailStart: number }> {
  const tailLength = Math.min(reader.size, END_MIN + MAX_COMMENT);
  const tailStart = reader.size - tailLength;
  const tail = await reader.read(tailStart, tailLength);
  const view = viewOf(tail);
  for (let at = tail.length - END_MIN; at >= 0; at--) {
    if (view.getUint32(at, true) === SIG_END) return { view, at, tailStart };
  }
  throw corrupt("no end-of-archive record");
}

/** Read the central directory: names, sizes and offsets of at most `maxEntries` entries. */
export async function readZipDirectory(reader: WindowedReader, maxEntries: number): Promise<ZipDirectory> {
  const { view: tail, at, tailStart } = await findEnd(reader);
  if (tail.getUint16(at + 4, true) !== 0 || tail.getUint16(at + 6, true) !== 0) {
    throw new UnsupportedFormatError("This is a split (multi-part) zip archive; join the parts into one .zip first.");
  }
  let declaredEntries = tail.getUint16(at + 10, true);
  let cdSize = tail.getUint32(at + 12, true);
  let cdOffset = tail.getUint32(at + 16, true);
  const locatorAt = tailStart + at - 20;
  if ((declaredEntries === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) && locatorAt >= 0) {
    const locator = viewOf(await reader.read(locatorAt, 20));
    if (locator.getUint32(0, true) === SIG_END64_LOCATOR) {
      const end64 = viewOf(await reader.read(u64(locator, 8), 56));
      if (end64.byteLength < 56 || end64.getUint32(0, true) !== SIG_END64) throw corrupt("bad zip64 end record");
      declaredEntries = u64(end64, 32);
      cdSize = u64(end64, 40);
      cdOffset = u64(end64, 48);
    }
  }
  if (cdOffset + cdSize > reader.size) throw corrupt("central directory points past the end of the file");

  const entries: ZipEntry[] = [];
  let pos = cdOffset;
  const cdEnd = cdOffset + cdSize;
  while (entries.length < Math.min(declaredEntries, maxEntries) && pos < cdEnd) {
    const fixed = await reader.read(pos, 46);
    const v = viewOf(fixed);
    if (fixed.length < 46 || v.getUint32(0, true) !== SIG_CENTRAL) throw corrupt("bad central directory record");
    const flags = v.getUint16(8, true);
    const method = v.getUint16(10, true);
    const crc = v.getUint32(16, true);
    let compressedSize = v.getUint32(20, true);
    let uncompressedSize = v.getUint32(24, true);
    const nameLength = v.getUint16(28, true);
    const extraLength = v.getUint16(30, true);
    const commentLength = v.getUint16(32, true);
    let localHeaderOffset = v.getUint32(42, true);
    const variable = await reader.read(pos + 46, nameLength + extraLength);
    if (variable.length < nameLength + extraLength) throw corrupt("truncated central directory");
    const name = decodeName(variable.subarray(0, nameLength), (flags & 0x800) !== 0);
    // Zip64: fields saturated at 0xFFFFFFFF continue in extra field 0x0001, in this order.
    const extra = viewOf(variable.subarray(nameLength));
    for (let e = 0; e + 4 <= extra.byteLength;) {
      const id = extra.getUint16(e, true);
      const size = extra.getUint16(e + 2, true);
      if (id === 0x0001) {
        let f = e + 4;
        const next = () => {
          if (f + 8 > e + 4 + size) throw corrupt("short zip64 field");
          const value = u64(extra, f);
          f += 8;
          return value;
        };
        if (uncompressedSize === 0xffffffff) uncompressedSize = next();
        if (compressedSize === 0xffffffff) compressedSize = next();
        if (localHeaderOffset === 0xffffffff) localHeaderOffset = next();
      }
      e += 4 + size;
    }
    entries.push({
      name,
      isDirectory: name.endsWith("/") || name.endsWith("\\"),
      method,
      encrypted: (flags & 0x1) !== 0,
      compressedSize,
      uncompressedSize,
      crc32: crc,
      localHeaderOffset,
    });
    pos += 46 + nameLength + extraLength + commentLength;
  }
  return { entries, declaredEntries, truncated: entries.length >= maxEntries && declaredEntries > maxEntries };
}

export interface EntryReadOptions {
  /** Refuse to produce more bytes than this (on top of the entry's own declared size). */
  maxBytes: number;
  /**
   * Called once with the first `headBytes` bytes (or the whole entry if shorter). Return false
   * to stop: the entry is then not read further and `readZipEntry` returns null.
   */
  onHead?: (head: Uint8Array) => boolean;
  headBytes?: number;
  /** Compressed bytes consumed so far, for progress displays. */
  onProgress?: (compressedDone: number) => void;
}

// Small pushes bound how far past a limit one push can overshoot: deflate expands at most
// 1032:1, so 16 KB in yields at most about 16.5 MB out before the size check runs.
const INFLATE_PUSH_BYTES = 16 * 1024;
const READ_BYTES = 1024 * 1024;

/** Where an entry's data starts: after its local header, whose name and extra lengths vary. */
async function dataStart(reader: WindowedReader, entry: ZipEntry): Promise<number> {
  const header = await reader.read(entry.localHeaderOffset, 30);
  const v = viewOf(header);
  if (header.length < 30 || v.getUint32(0, true) !== SIG_LOCAL) throw corrupt("bad local header");
  return entry.localHeaderOffset + 30 + v.getUint16(26, true) + v.getUint16(28, true);
}

/** Check an entry's declared sizes against the limits, before any of it is read. */
export function checkEntryLimits(
  entry: ZipEntry,
  limits: { maxZipEntryBytes: number; maxCompressionRatio: number; compressionRatioMinBytes: number },
): void {
  if (entry.encrypted) {
    throw new EncryptedFileError("This zip entry is encrypted; extract it with its password and add it separately.");
  }
  if (entry.method !== 0 && entry.method !== 8) {
    throw new UnsupportedFormatError(
      `This zip entry uses compression method ${entry.method}, which cannot be read here (only stored and ` +
        "deflate); re-create the zip with standard settings.",
    );
  }
  if (entry.uncompressedSize > limits.maxZipEntryBytes) {
    throw new LimitError(
      `This entry unpacks to ${formatBytes(entry.uncompressedSize)}, over the ${formatBytes(limits.maxZipEntryBytes)} ` +
        "limit for one zip entry; extract it and add the file directly.",
    );
  }
  const ratio = entry.uncompressedSize / Math.max(1, entry.compressedSize);
  if (entry.uncompressedSize >= limits.compressionRatioMinBytes && ratio > limits.maxCompressionRatio) {
    throw new LimitError(
      `This entry compresses ${Math.round(ratio)}:1 (${formatBytes(entry.compressedSize)} to ` +
        `${formatBytes(entry.uncompressedSize)}), beyond the ${limits.maxCompressionRatio}:1 limit; refused as a possible ` +
        "zip bomb. If you trust it, extract it and add the file directly.",
    );
  }
}

/**
 * The uncompressed bytes of one entry, as chunks, verified against its declared size and CRC.
 * Returns null when `onHead` asked to stop.
 */
export async function readZipEntry(reader: WindowedReader, entry: ZipEntry, options: EntryReadOptions): Promise<Uint8Array[] | null> {
  const start = await dataStart(reader, entry);
  if (start + entry.compressedSize > reader.size) throw corrupt("an entry runs past the end of the file");
  const cap = Math.min(entry.uncompressedSize, options.maxBytes);
  const headBytes = options.headBytes ?? 8192;
  const chunks: Uint8Array[] = [];
  let produced = 0;
  let headSeen = !options.onHead;
  let stopped = false;
  let overflow = false;

  const accept = (chunk: Uint8Array) => {
    if (stopped || overflow || chunk.length === 0) return;
    produced += chunk.length;
    if (produced > cap) {
      overflow = true;
      return;
    }
    chunks.push(chunk);
    if (!headSeen && produced >= headBytes) {
      headSeen = true;
      if (options.onHead && !options.onHead(joinHead(chunks, headBytes))) stopped = true;
    }
  };

  let inflater: Inflate | null = null;
  if (entry.method === 8) {
    inflater = new Inflate((chunk) => accept(chunk));
  } else if (entry.compressedSize !== entry.uncompressedSize) {
    throw corrupt("a stored entry's sizes disagree");
  }

  let consumed = 0;
  try {
    while (consumed < entry.compressedSize && !stopped && !overflow) {
      const piece = await reader.read(start + consumed, Math.min(READ_BYTES, entry.compressedSize - consumed));
      if (piece.length === 0) throw corrupt("unexpected end of file");
      for (let at = 0; at < piece.length && !stopped && !overflow; at += INFLATE_PUSH_BYTES) {
        const sub = piece.subarray(at, at + INFLATE_PUSH_BYTES);
        const last = consumed + at + sub.length >= entry.compressedSize;
        // No copy needed: the reader never writes into a window it handed out.
        if (inflater) inflater.push(sub, last);
        else accept(sub);
      }
      consumed += piece.length;
      options.onProgress?.(consumed);
    }
  } catch (err) {
    if (err instanceof CorruptFileError) throw err;
    throw corrupt(`deflate data is damaged: ${err instanceof Error ? err.message : String(err)}`);
  }

  if (overflow) {
    if (produced > entry.uncompressedSize) {
      throw new LimitError(
        `This entry unpacks to more than the ${formatBytes(entry.uncompressedSize)} its header declares; ` +
          "refused as a possible zip bomb.",
      );
    }
    throw new LimitError(`This entry unpacks to more than ${formatBytes(options.maxBytes)}, the space left under the zip's limits.`);
  }
  if (stopped) return null;
  if (produced !== entry.uncompressedSize) throw corrupt(`an entry is ${produced} bytes, its header says ${entry.uncompressedSize}`);
  let crc = 0;
  for (const c of chunks) crc = crc32(c, crc);
  if (crc !== entry.crc32) throw corrupt("an entry's checksum does not match its contents");
  if (!headSeen && options.onHead && !options.onHead(joinHead(chunks, headBytes))) return null;
  return chunks;
}

function joinHead(chunks: Uint8Array[], headBytes: number): Uint8Array {
  const total = Math.min(
    headBytes,
    chunks.reduce((n, c) => n + c.length, 0),
  );
  const head = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    if (at >= total) break;
    const part = c.subarray(0, total - at);
    head.set(part, at);
    at += part.length;
  }
  return head;
}
