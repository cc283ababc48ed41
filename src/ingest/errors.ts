// Why a file produced no document. Each failure is its own class carrying the problem code the
// result reports; its message is the sentence the user reads next to the file's path: a whole
// sentence that says what happened and what they can do.
import type { IngestProblemCode } from "./types.ts";

export abstract class IngestError extends Error {
  abstract readonly code: IngestProblemCode;
}

/**
 * The base of one failure: its class name (kept as written, since minified builds rename
 * classes) and its problem code. Each failure below was these two lines, copied.
 */
function failure<C extends IngestProblemCode>(errorName: string, problem: C) {
  return class extends IngestError {
    override name = errorName;
    readonly code: C = problem;
  };
}

export class EmptyFileError extends failure("EmptyFileError", "empty") {}

export class TooLargeError extends failure("TooLargeError", "too-large") {}

export class BinaryFileError extends failure("BinaryFileError", "binary") {
  constructor(what: string) {
    super(`Looks like a binary file (${what}); only text, PDF, DOCX and zip files can be read.`);
  }
}

export class UnsupportedFormatError extends failure("UnsupportedFormatError", "unsupported") {}

export class NoTextLayerError extends failure("NoTextLayerError", "no-text-layer") {
  constructor() {
    super("This PDF has no text layer (scanned?); OCR is not supported, so run it through an OCR tool first.");
  }
}

export class EncryptedFileError extends failure("EncryptedFileError", "encrypted") {}

export class CorruptFileError extends failure("CorruptFileError", "corrupt") {}

/** A Word document with a DTD: the shape of XXE and "billion laughs" attacks. */
export class UnsafeDocumentError extends failure("UnsafeDocumentError", "corrupt") {
  constructor(part: string) {
    super(
      `This Word document was not read: its part ${part} declares its own XML entities (a DOCTYPE), which Word never ` +
        'writes and which is how XXE and "billion laughs" attacks are built. Nothing in it was opened or loaded. ' +
        "If you trust the file, open it in Word or LibreOffice, save it again as .docx, and add that copy.",
    );
  }
}

export class NestedArchiveError extends failure("NestedArchiveError", "nested-archive") {
  constructor() {
    super("This archive inside the zip was not expanded (nested archives never are); unpack it and add it separately.");
  }
}

export class MetadataSkippedError extends failure("MetadataSkippedError", "skipped-metadata") {
  constructor(reason: string) {
    super(`Skipped: ${reason}.`);
  }
}

export class LimitError extends failure("LimitError", "limit") {}

export class FileReadError extends failure("FileReadError", "read-error") {
  constructor(cause: unknown) {
    super(
      `The file could not be read (${cause instanceof Error ? cause.message : String(cause)}); ` +
        "if it was moved or changed since you added it, add it again.",
    );
  }
}

/** A byte count for messages: "1.5 GB", "512 MB", "8.0 KB". */
export function formatBytes(bytes: number): string {
  const units = ["bytes", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${bytes} bytes`;
  return `${value >= 100 ? value.toFixed(0) : value.toFixed(1).replace(/\.0$/, "")} ${units[unit]}`;
}
