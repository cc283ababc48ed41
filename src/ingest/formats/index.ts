// The document formats: one entry each. Adding a format is a file in this folder and one line in
// FORMATS (plus its parser's loader in workers/browser/ingest.worker.ts and src/ingest/node.ts when it
// loads one). Everything that used to ask `kind === "pdf"` asks these functions instead: ingest
// (sniffing, extraction, misnamed files, zip packages), the viewer (page markers), the document
// list (labels), the suggestions (questions), and Python's facts (pythonFormatFacts).
import { extensionOf } from "../paths.ts";
import { docxFormat } from "./docx.ts";
import { pdfFormat } from "./pdf.ts";
import { textFormat, zipEntryFormat } from "./text.ts";
import type { DocumentFormat, ExtractedFormat, Places } from "./types.ts";

export const FORMATS = [textFormat, zipEntryFormat, pdfFormat, docxFormat] as const;

type Registered = (typeof FORMATS)[number];
/** Every kind a document can carry. */
export type DocumentKind = Registered["kind"];
/** The formats read by a parser. */
export type RegisteredExtractedFormat = Extract<Registered, ExtractedFormat>;
export type ExtractedKind = RegisteredExtractedFormat["kind"];

const BY_KIND: ReadonlyMap<string, DocumentFormat> = new Map(FORMATS.map((f) => [f.kind, f]));
const EXTRACTED: readonly RegisteredExtractedFormat[] = FORMATS.filter((f): f is RegisteredExtractedFormat => "reader" in f);

/**
 * The format of a document's kind. A kind no entry knows (a record written by a later version)
 * is read as plain text: lines, no markers.
 */
export function formatOf(kind: string): DocumentFormat {
  return BY_KIND.get(kind) ?? textFormat;
}

export function extractedFormatOf(kind: ExtractedKind): RegisteredExtractedFormat {
  return EXTRACTED.find((f) => f.kind === kind)!;
}

export function extractedFormats(): readonly RegisteredExtractedFormat[] {
  return EXTRACTED;
}

/** The word the document list shows for a kind ("pdf", "zip"…). */
export function kindLabel(kind: string): string {
  return BY_KIND.get(kind)?.label ?? kind;
}

/** How a kind's text marks its places. */
export function placesOf(kind: string): Places {
  return formatOf(kind).places;
}

/** The line prefix that starts a page in a kind's text, when it has pages (the viewer's page map). */
export function pageMarkOf(kind: string): string | undefined {
  const places = placesOf(kind);
  return places.unit === "page" ? places.before : undefined;
}

/** The parsed format a file's name claims (report.pdf → PDF), or null. */
export function formatClaiming(name: string): RegisteredExtractedFormat | null {
  const ext = extensionOf(name);
  return (ext && EXTRACTED.find((f) => f.extensions.includes(ext))) || null;
}

/** The format whose first bytes these are (PDF's `%PDF-`), or null. */
export function formatOfHead(head: Uint8Array): RegisteredExtractedFormat | null {
  return EXTRACTED.find((f) => f.reader.head?.(head)) ?? null;
}

/** Zip packages that are documents: by a telling entry (word/document.xml), else by the name. */
export function zipPackageFormat(entryNames: ReadonlySet<string>, name: string): RegisteredExtractedFormat | null {
  const packages = EXTRACTED.filter((f) => f.reader.zipEntry !== undefined);
  return packages.find((f) => entryNames.has(f.reader.zipEntry!)) ?? zipPackageNamed(name);
}

/** A zip package known only by its name: inside a zip, whose entries' own entries are not read. */
export function zipPackageNamed(name: string): RegisteredExtractedFormat | null {
  const claimed = formatClaiming(name);
  return claimed?.reader.zipEntry !== undefined ? claimed : null;
}

/** Whether a kind is one of the registry's (the kind a document is handed to Python with). */
export function isDocumentKind(kind: string): kind is DocumentKind {
  return BY_KIND.has(kind);
}

/**
 * What the Python runtime needs to know of each format whose places are more than lines: its kind
 * and how its text marks pages or paragraphs. scripts/python-formats.ts writes it into
 * workers/python/rlm_runtime/formats.py (tests/unit/python-formats.test.ts fails while that file
 * is stale), and the host passes each document's kind with its bytes (ContextDocumentInput.kind),
 * so Python never guesses a format from a name.
 */
export function pythonFormatFacts(): Array<{ kind: string; places: Exclude<Places, { unit: "line" }> }> {
  return FORMATS.flatMap((f) => (f.places.unit === "line" ? [] : [{ kind: f.kind, places: f.places }]));
}

export type { DocumentFormat, ExtractedFormat, Places } from "./types.ts";
