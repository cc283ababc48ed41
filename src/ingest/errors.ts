// Why a file produced no document. Each failure is its own class carrying the problem code the
// result reports; its message is the sentence the user reads next to the file's path: a whole
// sentence that says what happened and what they can do.
import type { IngestProblemCode } from "./types.ts";

export abstract class IngestError extends Error {
  abstract readonly code: IngestProblemCode;
}

export class EmptyFileError extends IngestError {
  override name = "EmptyFileError";
  readonly code = "empty";
}

export class TooLargeError extends IngestError {
  override name = "TooLargeError";
  readonly code = "too-large";
}

export class BinaryFileError extends IngestError {
  override name = "BinaryFileError";
  readonly code = "binary";
  constructor(what: string) {
    super(`Looks like a binary file (${what}); only text, PDF, DOCX and zip files can be read.`);
  }
}

export class UnsupportedFormatError extends IngestError {
  override name = "UnsupportedFormatError";
  readonly code = "unsupported";
}

export class NoTextLayerError extends IngestError {
  override name = "NoTextLayerError";
  readonly code = "no-text-layer";
  constructor() {
    super("This PDF has no text layer (scanned?); OCR is not supported, so run it through an OCR tool first.");
  }
}

export class EncryptedFileError extends IngestError {
  override name = "EncryptedFileError";
  readonly code = "encrypted";
}

export class CorruptFileError extends IngestError {
  override name = "CorruptFileError";
  readonly code = "corrupt";
}

/** A Word document with a DTD: the shape of XXE and "billion laughs" attacks. */
export class UnsafeDocumentError extends IngestError {
  override name = "UnsafeDocumentError";
  readonly code = "corrupt";
  constructor(part: string) {
    super(
      `This Word document was not read: its part ${part} declares its own XML entities (a DOCTYPE), which Word never ` +
        'writes and which is how XXE and "billion laughs" attacks are built. Nothing in it was opened or loaded. ' +
        "If you trust the file, open it in Word or LibreOffice, save it again as .docx, and add that copy.",
    );
  }
}

export class NestedArchiveError extends IngestError {
  override name = "NestedArchiveError";
  readonly code = "nested-archive";
  constructor() {
    super("This archive inside the zip was not expanded (nested archives never are); unpack it and add it separately.");
  }
}

export class MetadataSkippedError extends IngestError {
  override name = "MetadataSkippedError";
  readonly code = "skipped-metadata";
  constructor(reason: string) {
    super(`Skipped: ${reason}.`);
  }
}

export class LimitError extends IngestError {
  override name = "LimitError";
  readonly code = "limit";
}

export class FileReadError extends IngestError {
  override name = "FileReadError";
  readonly code = "read-error";
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
