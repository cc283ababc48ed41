// Character count and preview of a text, computed while streaming its bytes: what Python's
// `len(context)` will be, without ever holding the whole text as one JS string.
import { blobChunks, joinChunks } from "./blob-reader.ts";
import { bomDecoder, countCodePoints, decodeLatin1, detectBom, type ChunkDecoder } from "./decode.ts";
import { PreviewBuilder } from "./preview.ts";
import { Utf8Counter } from "./utf8-count.ts";
import type { PythonEncoding } from "./types.ts";

export interface TextMeasurement {
  encoding: PythonEncoding;
  /** Python `len()` of the decoded text. */
  chars: number;
  preview: string;
}

// Enough bytes to rebuild the preview if UTF-8 fails late and Latin-1 takes over: 20 lines of
// at most 2,000 characters are at most 2,000 bytes in Latin-1.
const HEAD_KEEP_BYTES = 8192;
const BOM_PROBE_BYTES = 4;

/** Push the bytes in order, then call `finish()` once. */
export class TextMeasurer {
  private undecided: Uint8Array[] = [];
  private undecidedBytes = 0;
  private head: Uint8Array = new Uint8Array(0);
  private decoder: ChunkDecoder | null = null;
  /** Plain UTF-8 (no BOM, the common case): counted from the bytes, never decoded whole. */
  private counter: Utf8Counter | null = null;
  private encoding: PythonEncoding = "utf-8";
  private latin1 = false;
  private bytes = 0;
  private chars = 0;
  private preview = new PreviewBuilder();

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.bytes += chunk.length;
    if (this.head.length < HEAD_KEEP_BYTES) {
      const more = chunk.subarray(0, HEAD_KEEP_BYTES - this.head.length);
      const head = new Uint8Array(this.head.length + more.length);
      head.set(this.head);
      head.set(more, this.head.length);
      this.head = head;
    }
    if (!this.decoder && !this.counter && !this.latin1) {
      // The BOM decides the decoder, and a chunk may be shorter than a BOM.
      this.undecided.push(chunk);
      this.undecidedBytes += chunk.length;
      if (this.undecidedBytes < BOM_PROBE_BYTES) return;
      this.choose();
      return;
    }
    this.feed(chunk, false);
  }

  finish(): TextMeasurement {
    if (!this.decoder && !this.counter && !this.latin1) this.choose();
    this.feed(new Uint8Array(0), true);
    if (this.counter) return this.finishCounted(this.counter);
    if (this.latin1) {
      const preview = new PreviewBuilder();
      preview.push(decodeLatin1(this.head));
      return { encoding: "latin-1", chars: this.bytes, preview: preview.value };
    }
    return { encoding: this.encoding, chars: this.chars, preview: this.preview.value };
  }

  private choose(): void {
    const pending = this.undecided;
    this.undecided = [];
    const first = joinChunks(pending);
    const bom = detectBom(first);
    if (bom) {
      this.encoding = bom.encoding;
      this.decoder = bomDecoder(bom.decoding);
      this.feed(first.subarray(bom.bomLength), false);
    } else {
      this.encoding = "utf-8";
      this.counter = new Utf8Counter();
      this.feed(first, false);
    }
  }

  /** Only the head is decoded, for the preview; the count came from the bytes. */
  private finishCounted(counter: Utf8Counter): TextMeasurement {
    if (!counter.finish()) {
      const preview = new PreviewBuilder();
      preview.push(decodeLatin1(this.head));
      return { encoding: "latin-1", chars: this.bytes, preview: preview.value };
    }
    const preview = new PreviewBuilder();
    preview.push(new TextDecoder("utf-8").decode(this.head, { stream: true }));
    return { encoding: "utf-8", chars: counter.chars, preview: preview.value };
  }

  private feed(chunk: Uint8Array, final: boolean): void {
    if (this.counter) {
      this.counter.push(chunk);
      return;
    }
    if (this.latin1 || !this.decoder) return;
    let text: string;
    try {
      text = this.decoder.decode(chunk, final);
    } catch {
      // Python tries UTF-8 on the whole file and falls back to Latin-1 on any error, even one
      // at the very end: from here on every byte is one character.
      this.latin1 = true;
      this.decoder = null;
      return;
    }
    this.chars += countCodePoints(text);
    this.preview.push(text);
  }
}

export const MEASURE_CHUNK_BYTES = 4 * 1024 * 1024;

/** Measure bytes already in memory (a zip entry), decoding a slice at a time. */
export function measureBytes(bytes: Uint8Array | Uint8Array[]): TextMeasurement {
  const measurer = new TextMeasurer();
  for (const part of Array.isArray(bytes) ? bytes : [bytes]) {
    for (let at = 0; at < part.length; at += MEASURE_CHUNK_BYTES) {
      measurer.push(part.subarray(at, at + MEASURE_CHUNK_BYTES));
    }
  }
  return measurer.finish();
}

/** Measure a Blob by streaming it; `onBytes` reports how many bytes were read so far. */
export async function measureBlob(blob: Blob, onBytes?: (done: number) => void): Promise<TextMeasurement> {
  const measurer = new TextMeasurer();
  let done = 0;
  for await (const chunk of blobChunks(blob, MEASURE_CHUNK_BYTES)) {
    measurer.push(chunk);
    done += chunk.length;
    onBytes?.(done);
  }
  return measurer.finish();
}
