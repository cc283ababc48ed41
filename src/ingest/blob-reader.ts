// Reading parts of a Blob without reading all of it. A File from a drop is a handle to disk;
// slicing it reads only the bytes asked for, which is what keeps a 1 GB input off the heap.
import { FileReadError } from "./errors.ts";

export async function readRange(blob: Blob, start: number, end: number): Promise<Uint8Array> {
  try {
    return new Uint8Array(await blob.slice(start, end).arrayBuffer());
  } catch (err) {
    throw new FileReadError(err);
  }
}

/** Join chunks into one array (for a reader or parser that needs the whole, such as pdfjs). */
export function joinChunks(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

export const STREAM_CHUNK_BYTES = 4 * 1024 * 1024;

/** The bytes of `blob` in order, `chunkBytes` at a time. */
export async function* blobChunks(blob: Blob, chunkBytes = STREAM_CHUNK_BYTES): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < blob.size; at += chunkBytes) {
    yield await readRange(blob, at, Math.min(blob.size, at + chunkBytes));
  }
}

/**
 * Random access with a read-ahead window. A zip of a code repository holds thousands of small
 * entries stored one after another; one 4 MB read then serves hundreds of them instead of two
 * reads per entry.
 */
export class WindowedReader {
  private windowStart = 0;
  private window: Uint8Array = new Uint8Array(0);

  constructor(
    readonly blob: Blob,
    private readonly windowBytes = STREAM_CHUNK_BYTES,
  ) {}

  get size(): number {
    return this.blob.size;
  }

  /** Exactly `length` bytes at `offset`, or fewer if the blob ends first. */
  async read(offset: number, length: number): Promise<Uint8Array> {
    const end = Math.min(this.blob.size, offset + length);
    if (offset >= this.windowStart && end <= this.windowStart + this.window.length) {
      return this.window.subarray(offset - this.windowStart, end - this.windowStart);
    }
    if (end - offset > this.windowBytes) return readRange(this.blob, offset, end);
    this.windowStart = offset;
    this.window = await readRange(this.blob, offset, Math.min(this.blob.size, offset + this.windowBytes));
    return this.window.subarray(0, end - offset);
  }
}
