// The shapes the document viewer's pieces share: how a stored document's bytes map to the
// character offsets Python reports, and to lines and pages.
import type { PythonEncoding } from "../ingest/types.ts";

/** How the bytes after the byte-order mark are read, one unit at a time. */
export type Unit = "utf-8" | "latin-1" | "utf-16le" | "utf-16be" | "utf-32le" | "utf-32be";

/** Characters between checkpoints: reading any passage decodes at most this many extra. */
export const CHECKPOINT_CHARS = 4096;

/**
 * A document's map, built once off the main thread. Offsets count characters the way Python's
 * str does (code points), so a source range from the REPL lands on the same text here.
 */
export interface DocumentIndex {
  unit: Unit;
  /** Bytes of the byte-order mark Python strips (0 when none). */
  bomBytes: number;
  totalChars: number;
  byteLength: number;
  /** checkpoints[k] is the byte offset of character k × CHECKPOINT_CHARS. */
  checkpoints: Float64Array;
  /** The character offset where each line starts (line 1 at index 0). */
  lineStarts: Uint32Array;
  /** A paged format's text (PDF: "--- page N ---" lines): the 0-based line each page starts on. */
  pageLines: Uint32Array;
}

export interface IndexRequest {
  /** The codec Python used (DocumentMeta.encoding); undefined means UTF-8. */
  encoding?: PythonEncoding | string;
  /**
   * The line prefix that starts a page, for a format with pages (`pageMarkOf(kind)` in
   * src/ingest/formats: "--- page " for PDF). Without it, no pages are looked for.
   */
  pageMark?: string;
}

export interface FindOptions {
  caseSensitive?: boolean;
  /** Stop after this many matches (default 10,000). */
  max?: number;
}

export interface FindResult {
  /** Character offsets of the matches, in order. */
  starts: Float64Array;
  /** Length of each match in characters (the query's length in code points). */
  length: number;
  /** True when `max` was reached. */
  truncated: boolean;
}
