// The shapes that cross the ingest API: what goes in (files with paths), what comes out
// (documents ready for the REPL, plus problems), the limits and the progress reports.
// Everything here is structured-cloneable, so the same types serve the worker protocol.
import type { RegisteredExtractedFormat } from "./formats/index.ts";
import type { pdfFormat } from "./formats/pdf.ts";
import type { ExtractedFormat } from "./formats/types.ts";

/** One file to read. A dropped folder gives paths like `repo/src/a.ts`. */
export interface IngestInput {
  file: Blob;
  /**
   * Where the file sits in what the user dropped, with `/` separators. Defaults to the File's
   * `webkitRelativePath`, then its `name`. Documents are keyed by this path in the REPL.
   */
  path?: string;
}

/**
 * How Python's `decode_bytes` (workers/python/rlm_runtime/documents.py) names the codec it used. The REPL
 * reports the same names in `ContextInfo.encodings`.
 */
export type PythonEncoding = "utf-8" | "utf-8-sig" | "utf-16" | "utf-32" | "latin-1";

export interface DocumentBase {
  /** Unique within one IngestResult: the key of this document in a dict-shaped `context`. */
  path: string;
  /** The last path segment, for display. */
  name: string;
  /** Size of the source: the file, or the uncompressed size of a zip entry. */
  sourceBytes: number;
  /** `len(text)` in Python: Unicode code points (an emoji counts 1, not 2 as in JS). */
  chars: number;
  /** ceil(chars / 3.5): a rough token count for budgeting, not a tokenizer's. */
  tokensEstimate: number;
  /** The codec Python will use on `data`. Always "utf-8" for extracted (PDF, DOCX) text. */
  encoding: PythonEncoding;
  /** The text's first 20 lines, at most 2,000 characters. */
  preview: string;
  /**
   * What the REPL decodes into this document's text (pass it as ContextDocumentInput.data).
   * Plain text: the original File or zip-entry bytes, never re-encoded. PDF/DOCX: the
   * extracted text as UTF-8.
   */
  data: Blob;
  /** For documents found inside a zip: the path of that zip. */
  archive?: string;
}

/** A plain text file (any extension whose bytes look like text). */
export interface TextDocument extends DocumentBase {
  kind: "text";
}

/** A text file inside a zip archive. */
export interface ZipEntryDocument extends DocumentBase {
  kind: "zip-entry";
  archive: string;
}

/** A document of a parsed format (formats/index.ts): its kind and the fields its format adds. */
export type ExtractedDocument<F = RegisteredExtractedFormat> =
  F extends ExtractedFormat<infer Kind, infer Fields> ? DocumentBase & { kind: Kind } & Fields : never;

/** Text extracted from a PDF's text layer, every page starting with its marker (formats/pdf.ts). */
export type PdfDocument = ExtractedDocument<typeof pdfFormat>;

export type IngestedDocument = TextDocument | ZipEntryDocument | ExtractedDocument;

/** Why a file (or zip entry) produced no document. Lets a UI group problems. */
export type IngestProblemCode =
  | "empty" //           no bytes, or no text once decoded/extracted
  | "too-large" //       over a size limit; refused before being read whole
  | "binary" //          neither text nor a format we can extract
  | "unsupported" //     a format we recognise but cannot read (xlsx, .doc, rar, …)
  | "no-text-layer" //   a PDF whose pages have no text (scanned)
  | "encrypted" //       password-protected PDF or zip entry
  | "corrupt" //         a damaged PDF, DOCX, zip or zip entry
  | "nested-archive" //  an archive inside a zip, listed but not expanded
  | "skipped-metadata" // __MACOSX/, .DS_Store, .git/: tool metadata, not content
  | "limit" //           an archive limit (entries, total size, compression ratio) stopped reading
  | "read-error"; //     the browser could not read the file (moved, deleted, permission)

/** One file that was not turned into a document. Problems never stop the other files. */
export interface IngestProblem {
  /** The input's path, or `archive.zip/inner/path` for a zip entry. */
  path: string;
  code: IngestProblemCode;
  /** A sentence for the user: what happened and what they can do. */
  message: string;
}

export interface IngestResult {
  /** In input order; a zip's entries in archive order. */
  documents: IngestedDocument[];
  problems: IngestProblem[];
  /** Sum of `chars`: Python's `total_chars` for a dict-shaped context of these documents. */
  totalChars: number;
  totalTokensEstimate: number;
}

/** Guards against inputs that would exhaust memory. All sizes are bytes. */
export interface IngestLimits {
  /** A file larger than this is refused before any of it is read. */
  maxFileBytes: number;
  /** PDF and DOCX must be read whole to be parsed: larger ones are refused. */
  maxParsedFileBytes: number;
  /** Entries (files and folders) read from one zip; the rest are reported, not read. */
  maxZipEntries: number;
  /** Sum of uncompressed entry sizes accepted from one zip. */
  maxZipTotalBytes: number;
  /** Uncompressed size of one zip entry. */
  maxZipEntryBytes: number;
  /** Uncompressed/compressed size above which a large entry is treated as a zip bomb. */
  maxCompressionRatio: number;
  /** Entries smaller than this skip the ratio check (a 100 KB file of zeros is harmless). */
  compressionRatioMinBytes: number;
}

export const MiB = 1024 * 1024;

export const DEFAULT_LIMITS: Readonly<IngestLimits> = Object.freeze({
  maxFileBytes: 1536 * MiB,
  maxParsedFileBytes: 256 * MiB,
  maxZipEntries: 20_000,
  maxZipTotalBytes: 512 * MiB,
  maxZipEntryBytes: 256 * MiB,
  maxCompressionRatio: 200,
  compressionRatioMinBytes: 1 * MiB,
});

/** Where pdfjs finds data files it may need; both optional (URLs, or paths in Node). */
export interface PdfAssetOptions {
  /**
   * Folder holding pdfjs-dist/cmaps/ (ending in "/"). Without it, CJK PDFs whose fonts rely on
   * predefined, non-embedded CMaps may extract incomplete text.
   */
  cMapUrl?: string;
  /** Folder holding pdfjs-dist/standard_fonts/ (ending in "/"). Not needed for text. */
  standardFontDataUrl?: string;
}

export interface IngestOptions {
  limits?: Partial<IngestLimits>;
  pdf?: PdfAssetOptions;
}

export type IngestPhase = "reading" | "extracting" | "unpacking";

export interface IngestProgress {
  /** 0-based index of the input being read, and how many inputs there are. */
  inputIndex: number;
  inputCount: number;
  /** The input, or the zip entry, being read. */
  path: string;
  phase: IngestPhase;
  /** Bytes of the current input processed so far, and its size. */
  bytesDone: number;
  bytesTotal: number;
}

export type IngestProgressCallback = (progress: IngestProgress) => void;
