// Files in, documents out: decide what each input is, apply the limits before reading anything
// whole, and turn every failure into a problem that leaves the other files alone.
// Runs wherever a Blob can be sliced: the ingest worker in browsers, plain Node for the CLI/tests.
import { joinChunks, readRange, WindowedReader } from "./blob-reader.ts";
import { countCodePoints, toWellFormed } from "./decode.ts";
import {
  BinaryFileError,
  CorruptFileError,
  EmptyFileError,
  IngestError,
  MetadataSkippedError,
  NestedArchiveError,
  TooLargeError,
  UnsupportedFormatError,
  formatBytes,
} from "./errors.ts";
import type { Extractors } from "./extractors.ts";
import { extractedFormatOf, formatClaiming, zipPackageFormat, zipPackageNamed, type RegisteredExtractedFormat } from "./formats/index.ts";
import { measureBlob, measureBytes } from "./measure.ts";
import { UniquePaths, baseName, inputPath, metadataReason, normalizePath } from "./paths.ts";
import { previewOf } from "./preview.ts";
import { SNIFF_BYTES, binaryKindFromName, isArchiveName, sniff, type Sniffed } from "./sniff.ts";
import {
  DEFAULT_LIMITS,
  type IngestInput,
  type IngestLimits,
  type IngestOptions,
  type IngestPhase,
  type IngestProblem,
  type IngestProgressCallback,
  type IngestResult,
  type IngestedDocument,
  type PdfAssetOptions,
} from "./types.ts";
import { checkEntryLimits, readZipDirectory, readZipEntry, type ZipDirectory, type ZipEntry } from "./zip.ts";

/** Python counts ~3.5 characters per token for English prose; close enough for budgets. */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / 3.5);
}

export function resolveLimits(overrides: Partial<IngestLimits> = {}): IngestLimits {
  const limits = { ...DEFAULT_LIMITS };
  for (const [key, value] of Object.entries(overrides) as Array<[keyof IngestLimits, number | undefined]>) {
    if (typeof value === "number" && Number.isFinite(value) && value > 0) limits[key] = value;
  }
  return limits;
}

/** Text extracted by a format's parser (PDF, DOCX) as the UTF-8 Blob the REPL decodes, with its Python length. */
export function extractedText(text: string): { data: Blob; chars: number; preview: string } {
  // A leading U+FEFF would be written as a UTF-8 BOM, which Python strips ("utf-8-sig"): the
  // counts would then disagree by one. Lone surrogates would become U+FFFD in UTF-8 anyway.
  const clean = toWellFormed(text).replace(/^\ufeff+/, "");
  return {
    data: new Blob([clean], { type: "text/plain;charset=utf-8" }),
    chars: countCodePoints(clean),
    preview: previewOf(clean),
  };
}

const PROGRESS_INTERVAL_MS = 100;

/** Zip packages we recognise but cannot read, by the entries that tell them, and what to do instead. */
const UNSUPPORTED_ZIPS: ReadonlyArray<{ entries: readonly string[]; message: string }> = [
  { entries: ["xl/workbook.xml"], message: "This is an Excel workbook, which cannot be read here; save its sheets as CSV and add those." },
  {
    entries: ["ppt/presentation.xml"],
    message: "This is a PowerPoint presentation, which cannot be read here; export it as PDF and add that.",
  },
  {
    entries: ["mimetype", "content.xml"],
    message: "This is an OpenDocument file, which cannot be read here; save it as .docx or PDF and add that.",
  },
];

/**
 * What a zip really is, from its entry names: Office documents are zips too. A format of ours
 * (formats/: DOCX), a package we cannot read (its message), or an archive to unpack.
 */
export function zipKind(dir: ZipDirectory, name: string): RegisteredExtractedFormat | { unsupported: string } | "archive" {
  const names = new Set(dir.entries.map((e) => e.name));
  const format = zipPackageFormat(names, name);
  if (format) return format;
  const unsupported = UNSUPPORTED_ZIPS.find((z) => z.entries.every((e) => names.has(e)));
  return unsupported ? { unsupported: unsupported.message } : "archive";
}

/** The parsed format a file or zip entry turned out to be: by its head (PDF), or a zip package named as one (DOCX). */
function parsedFormat(sniffed: Sniffed, name: string): RegisteredExtractedFormat | null {
  if (sniffed.type === "zip") return zipPackageNamed(name);
  if (sniffed.type === "text" || sniffed.type === "binary") return null;
  return extractedFormatOf(sniffed.type);
}

/** Whether what the bytes are agrees with a format the name claims. */
function sniffedAs(format: RegisteredExtractedFormat, sniffed: Sniffed): boolean {
  return format.reader.head ? sniffed.type === format.kind : sniffed.type === "zip";
}

class Ingestion {
  readonly documents: IngestedDocument[] = [];
  readonly problems: IngestProblem[] = [];
  private readonly paths = new UniquePaths();
  private lastProgress = 0;
  private inputIndex = 0;

  constructor(
    private readonly inputCount: number,
    private readonly extractors: Extractors,
    private readonly limits: IngestLimits,
    private readonly pdfAssets: PdfAssetOptions,
    private readonly onProgress: IngestProgressCallback | undefined,
  ) {}

  progress(path: string, phase: IngestPhase, bytesDone: number, bytesTotal: number, force = false): void {
    if (!this.onProgress) return;
    const now = Date.now();
    if (!force && now - this.lastProgress < PROGRESS_INTERVAL_MS) return;
    this.lastProgress = now;
    try {
      this.onProgress({ inputIndex: this.inputIndex, inputCount: this.inputCount, path, phase, bytesDone, bytesTotal });
    } catch {
      // A failing progress display is not the file's problem.
    }
  }

  problem(path: string, err: unknown): void {
    if (err instanceof IngestError) {
      this.problems.push({ path, code: err.code, message: err.message });
    } else {
      // Not a failure we anticipated (a bug, or an engine limit such as running out of memory):
      // still one file's problem, never the whole drop's.
      const detail = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      this.problems.push({ path, code: "corrupt", message: `The file could not be read (${detail}).` });
    }
  }

  async input(input: IngestInput, index: number): Promise<void> {
    this.inputIndex = index;
    const path = inputPath(input);
    const file = input.file;
    this.progress(path, "reading", 0, file.size, true);
    try {
      const skip = metadataReason(path);
      if (skip) throw new MetadataSkippedError(skip);
      if (file.size === 0) throw new EmptyFileError("The file is empty (0 bytes).");
      if (file.size > this.limits.maxFileBytes) {
        throw new TooLargeError(
          `The file is ${formatBytes(file.size)}, over the ${formatBytes(this.limits.maxFileBytes)} limit; ` +
            "split it into smaller files and add those.",
        );
      }
      const head = await readRange(file, 0, SNIFF_BYTES);
      const sniffed = sniff(head, path);
      const claimed = formatClaiming(path);
      if (claimed && !sniffedAs(claimed, sniffed)) throw new CorruptFileError(claimed.reader.misnamed);
      if (sniffed.type === "text") await this.text(path, file);
      else if (sniffed.type === "zip") await this.zip(path, file);
      else if (sniffed.type === "binary") throw binaryError(sniffed);
      else await this.extract(extractedFormatOf(sniffed.type), path, file.size, async () => readRange(file, 0, file.size));
    } catch (err) {
      this.problem(path, err);
    }
    this.progress(path, "reading", file.size, file.size, true);
  }

  private async text(path: string, file: Blob): Promise<void> {
    const measured = await measureBlob(file, (done) => this.progress(path, "reading", done, file.size));
    if (measured.chars === 0) throw new EmptyFileError("The file contains no text (only a byte-order mark).");
    const unique = this.paths.claim(path);
    this.documents.push({
      kind: "text",
      path: unique,
      name: baseName(unique),
      sourceBytes: file.size,
      chars: measured.chars,
      tokensEstimate: estimateTokens(measured.chars),
      encoding: measured.encoding,
      preview: measured.preview,
      // The original bytes: the REPL decodes them itself, exactly as measured above.
      data: file,
    });
  }

  private checkParsedSize(kind: string, size: number): void {
    if (size > this.limits.maxParsedFileBytes) {
      throw new TooLargeError(
        `This ${kind} is ${formatBytes(size)}; ${kind} files over ${formatBytes(this.limits.maxParsedFileBytes)} ` +
          "cannot be parsed in the browser. Split it, or export its text and add that.",
      );
    }
  }

  /** A file of a parsed format (PDF, DOCX), read whole and given to its format's extractor. */
  private async extract(
    format: RegisteredExtractedFormat,
    path: string,
    size: number,
    bytes: () => Promise<Uint8Array>,
    archive?: string,
  ): Promise<void> {
    this.checkParsedSize(format.reader.sizeName, size);
    const data = await bytes();
    this.progress(path, "extracting", 0, size, true);
    const out = await this.extractors[format.kind](data, {
      pdf: this.pdfAssets,
      onProgress: (done, total) => this.progress(path, "extracting", Math.round((size * done) / total), size),
    });
    const text = extractedText(out.text);
    if (text.chars === 0 && format.reader.empty) throw new EmptyFileError(format.reader.empty);
    this.documents.push({ kind: format.kind, ...this.extracted(path, size, text, archive), ...out.fields } as IngestedDocument);
  }

  /** The fields every document of extracted (UTF-8) text shares. */
  private extracted(path: string, size: number, text: ReturnType<typeof extractedText>, archive?: string) {
    const unique = this.paths.claim(path);
    return {
      path: unique,
      name: baseName(unique),
      sourceBytes: size,
      chars: text.chars,
      tokensEstimate: estimateTokens(text.chars),
      encoding: "utf-8" as const,
      preview: text.preview,
      data: text.data,
      ...(archive ? { archive } : {}),
    };
  }

  private async zip(path: string, file: Blob): Promise<void> {
    const reader = new WindowedReader(file);
    const dir = await readZipDirectory(reader, this.limits.maxZipEntries);
    const kind = zipKind(dir, path);
    if (kind !== "archive" && "reader" in kind) {
      await this.extract(kind, path, file.size, async () => readRange(file, 0, file.size));
      return;
    }
    if (kind !== "archive") throw new UnsupportedFormatError(kind.unsupported);
    if (dir.declaredEntries === 0) throw new EmptyFileError("This zip archive has no files.");
    if (dir.truncated) {
      this.problems.push({
        path,
        code: "limit",
        message:
          `This zip has ${dir.declaredEntries.toLocaleString("en")} entries; only the first ` +
          `${dir.entries.length.toLocaleString("en")} were read (a limit against zip bombs). ` +
          "Split the archive to read the rest.",
      });
    }
    let used = 0;
    for (let i = 0; i < dir.entries.length; i++) {
      const entry = dir.entries[i] as ZipEntry;
      if (entry.isDirectory) continue;
      const entryPath = `${path}/${normalizePath(entry.name)}`;
      try {
        used += await this.zipEntry(reader, entry, entryPath, path, this.limits.maxZipTotalBytes - used);
      } catch (err) {
        if (!(err instanceof ArchiveBudgetSpent)) {
          this.problem(entryPath, err);
          continue;
        }
        // One problem for the rest, not one per entry: a bomb may hold a million of them.
        const left = dir.entries.slice(i).filter((e) => !e.isDirectory).length;
        this.problems.push({
          path,
          code: "limit",
          message:
            `Stopped unpacking at ${entryPath}: it would take this zip past ${formatBytes(this.limits.maxZipTotalBytes)} ` +
            `unpacked, the limit for one archive; ${left.toLocaleString("en")} entries were not read. ` +
            "Split the archive, or extract it and add the folders you need.",
        });
        break;
      }
    }
  }

  /** Read one entry into a document. Returns the uncompressed bytes it used. */
  private async zipEntry(reader: WindowedReader, entry: ZipEntry, entryPath: string, archive: string, budgetLeft: number): Promise<number> {
    const skip = metadataReason(entryPath);
    if (skip) throw new MetadataSkippedError(skip);
    checkEntryLimits(entry, this.limits);
    if (!zipPackageNamed(entryPath) && isArchiveName(entryPath)) throw new NestedArchiveError();
    const binaryName = binaryKindFromName(entryPath);
    if (binaryName) throw new BinaryFileError(binaryName);
    if (entry.uncompressedSize === 0) throw new EmptyFileError("This zip entry is empty (0 bytes).");
    if (entry.uncompressedSize > budgetLeft) throw new ArchiveBudgetSpent();

    let sniffed: Sniffed = { type: "text" };
    const chunks = await readZipEntry(reader, entry, {
      maxBytes: this.limits.maxZipEntryBytes,
      headBytes: SNIFF_BYTES,
      onHead: (head) => {
        sniffed = sniff(head, entryPath);
        // Stop early for what will not become a document: no point inflating a 50 MB binary,
        // nor a PDF too big to parse.
        if (parsedFormat(sniffed, entryPath)) return entry.uncompressedSize <= this.limits.maxParsedFileBytes;
        return sniffed.type === "text";
      },
      onProgress: (done) => this.progress(entryPath, "unpacking", entry.localHeaderOffset + done, reader.size),
    });
    const found = sniffed as Sniffed;
    const format = parsedFormat(found, entryPath);
    if (!chunks) {
      if (format) this.checkParsedSize(format.reader.sizeName, entry.uncompressedSize);
      if (found.type === "zip") throw new NestedArchiveError();
      if (found.type === "binary") throw found.archive ? new NestedArchiveError() : binaryError(found);
      throw new CorruptFileError("This zip entry could not be read.");
    }
    if (format) {
      await this.extract(format, entryPath, entry.uncompressedSize, async () => joinChunks(chunks), archive);
    } else if (found.type === "zip") {
      throw new NestedArchiveError(); // not reached: a zip that is no package of ours is never inflated
    } else {
      const measured = measureBytes(chunks);
      if (measured.chars === 0) throw new EmptyFileError("This zip entry contains no text (only a byte-order mark).");
      const unique = this.paths.claim(entryPath);
      this.documents.push({
        kind: "zip-entry",
        path: unique,
        name: baseName(unique),
        archive,
        sourceBytes: entry.uncompressedSize,
        chars: measured.chars,
        tokensEstimate: estimateTokens(measured.chars),
        encoding: measured.encoding,
        preview: measured.preview,
        data: new Blob(chunks as BlobPart[]),
      });
    }
    return entry.uncompressedSize;
  }
}

/** The archive's total-size budget cannot hold the next entry: reading stops there. */
class ArchiveBudgetSpent extends Error {}

function binaryError(sniffed: Extract<Sniffed, { type: "binary" }>): IngestError {
  if (sniffed.archive) {
    return new UnsupportedFormatError(
      `This is a ${sniffed.what}; only .zip archives can be unpacked here. Extract it and add the files, or re-pack them as .zip.`,
    );
  }
  if (sniffed.unsupported) {
    return new UnsupportedFormatError(`This is a ${sniffed.what}, which cannot be read here; save it as .docx, PDF or text and add that.`);
  }
  return new BinaryFileError(sniffed.what);
}

/**
 * Read every input into documents. Never throws for a bad file: each one becomes a problem and
 * the others carry on. Inputs are read one after another to bound memory.
 */
export async function ingestFiles(
  inputs: readonly IngestInput[],
  extractors: Extractors,
  options: IngestOptions = {},
  onProgress?: IngestProgressCallback,
): Promise<IngestResult> {
  const run = new Ingestion(inputs.length, extractors, resolveLimits(options.limits), options.pdf ?? {}, onProgress);
  for (let i = 0; i < inputs.length; i++) await run.input(inputs[i] as IngestInput, i);
  const totalChars = run.documents.reduce((n, d) => n + d.chars, 0);
  return {
    documents: run.documents,
    problems: run.problems,
    totalChars,
    totalTokensEstimate: run.documents.reduce((n, d) => n + d.tokensEstimate, 0),
  };
}
