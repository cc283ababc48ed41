// What a document format decides, as one entry per format (src/ingest/formats/index.ts lists
// them): how a file of it is recognised and read, which kind its documents carry, how its text
// marks places (pages, paragraphs) for the viewer, the sources and Python, what the document list
// calls it, and which questions are worth suggesting for it. Ingest, the viewer, the page and the
// Python runtime's facts (pythonFormatFacts) all read the entry instead of checking kinds by name.
import type { PdfAssetOptions } from "../types.ts";

/**
 * How a format's extracted text marks its places. Lines are counted in every document; a format
 * may add one coarser unit, which Python's evidence recorder counts and reports as that field of a
 * source (`page`, `paragraph`: SourceRange in src/repl/protocol.ts), and which its sources are
 * cited by (`sourceLabel` in src/core/evidence.ts: "p. 3", "¶ 14").
 */
export type Places =
  | { unit: "line" }
  /** A page starts with the line `${before}${n}${after}` (n from 1); the viewer finds `before` at a line's start. */
  | { unit: "page"; before: string; after: string }
  /** Paragraphs are separated by `separator`; the n-th paragraph is cited as n. */
  | { unit: "paragraph"; separator: string };

/** What an extractor is given besides the bytes. */
export interface ExtractOptions {
  /** Where pdfjs finds its data files (formats that need none ignore it). */
  pdf: PdfAssetOptions;
  /** Progress within the file (PDF: pages done of pages). */
  onProgress?: (done: number, total: number) => void;
}

/** A format's text, and the fields its documents carry beyond every document's (PDF: pages). */
export interface Extracted<Fields extends object> {
  text: string;
  fields: Fields;
}

/** What the suggestions know of a document: its name (as the page shows it) and first lines. */
export interface FormatQuestionInput {
  name: string;
  preview: string;
}

interface FormatFacts<Kind extends string> {
  /** The `kind` its documents carry (IngestedDocument, DocumentMeta), and Python's name for it. */
  readonly kind: Kind;
  /** The word the document list shows beside the name. */
  readonly label: string;
  /** File name extensions (lower case, no dot) that claim this format. */
  readonly extensions: readonly string[];
  readonly places: Places;
  /** Questions worth a first click for a document of this format (beyond the general ones). */
  readonly questions?: (doc: FormatQuestionInput) => string[];
}

/** Text read as it is: its bytes are the document, decoded by Python (no reader here). */
export type TextFormat<Kind extends string = string> = FormatFacts<Kind>;

/** How a format that needs a parser is recognised and read. */
export interface FormatReader<Fields extends object, Parser> {
  /** Its first bytes say it is this format (PDF: `%PDF-` in the first 1,024). */
  readonly head?: (head: Uint8Array) => boolean;
  /**
   * A zip package is this format when it holds this entry (DOCX: word/document.xml), or when
   * its name has one of the format's extensions (also inside a zip, where its entries are unread).
   */
  readonly zipEntry?: string;
  /** What the parser is called in "The PDF reader could not be loaded". */
  readonly parser: string;
  /** What the file is called in size limits ("This PDF is 300 MB…"). */
  readonly sizeName: string;
  /** Said when a file named with the format's extension is not one. */
  readonly misnamed: string;
  /** Said when the extracted text is empty (a format whose extractor says so itself needs none). */
  readonly empty?: string;
  /** The text, or an IngestError that says what is wrong with the file. */
  extract(bytes: Uint8Array, parser: Parser, options: ExtractOptions): Promise<Extracted<Fields>>;
}

/** A format whose text is extracted by a parser loaded on first use (PDF, DOCX). */
export interface ExtractedFormat<Kind extends string = string, Fields extends object = object, Parser = unknown> extends FormatFacts<Kind> {
  readonly reader: FormatReader<Fields, Parser>;
}

export type DocumentFormat = TextFormat | ExtractedFormat;

/** The fields a format's documents carry beyond every document's. */
export type FieldsOf<F> = F extends ExtractedFormat<string, infer Fields> ? Fields : object;
/** The parser module a format's extractor is given. */
export type ParserOf<F> = F extends ExtractedFormat<string, object, infer Parser> ? Parser : never;
