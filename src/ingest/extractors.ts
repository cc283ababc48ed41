// The heavy parsers (pdfjs, mammoth), loaded on first use and then kept. Where they come from
// differs by runtime, so callers pass loaders, one per parsed format: the ingest worker imports
// the browser builds, src/ingest/node.ts the Node ones. What each format does with its parser is
// the format's own (src/ingest/formats/).
import { IngestError } from "./errors.ts";
import { extractedFormats, type ExtractedKind, type RegisteredExtractedFormat } from "./formats/index.ts";
import type { Extracted, ExtractOptions, FieldsOf, ParserOf } from "./formats/types.ts";

type FormatOfKind<K extends ExtractedKind> = Extract<RegisteredExtractedFormat, { kind: K }>;

/** Each parsed format's extractor: the bytes of one file in, its text and fields out. */
export type Extractors = {
  [K in ExtractedKind]: (bytes: Uint8Array, options: ExtractOptions) => Promise<Extracted<FieldsOf<FormatOfKind<K>>>>;
};

/**
 * How each parsed format's parser module is loaded in this runtime. A format that needs no module
 * (its reader's parser type is `void`) needs no loader.
 */
export type ExtractorLoaders = {
  [F in RegisteredExtractedFormat as ParserOf<F> extends void ? never : F["kind"]]: () => Promise<ParserOf<F>>;
};

/** Thrown when a parser's code cannot be loaded (an offline app missing a chunk). */
export class ExtractorLoadError extends IngestError {
  override name = "ExtractorLoadError";
  readonly code = "read-error";
  constructor(what: string, cause: unknown) {
    super(
      `The ${what} reader could not be loaded (${cause instanceof Error ? cause.message : String(cause)}); ` +
        "reload the page while online once so it is cached.",
    );
  }
}

function once<T>(what: string, load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | null = null;
  return () => {
    pending ??= load().catch((err: unknown) => {
      pending = null; // a later file may retry, e.g. after the connection is back
      throw new ExtractorLoadError(what, err);
    });
    return pending;
  };
}

function extractorOf(format: RegisteredExtractedFormat, load: () => Promise<unknown>) {
  const parser = once(format.reader.parser, load);
  // Each format's extractor takes the parser its own loader gives (ExtractorLoaders pairs them).
  const extract = format.reader.extract as (bytes: Uint8Array, parser: unknown, options: ExtractOptions) => Promise<Extracted<object>>;
  return async (bytes: Uint8Array, options: ExtractOptions) => extract(bytes, await parser(), options);
}

export function createExtractors(loaders: ExtractorLoaders): Extractors {
  const byKind = loaders as Partial<Record<ExtractedKind, () => Promise<unknown>>>;
  const entries = extractedFormats().map((format) => [format.kind, extractorOf(format, byKind[format.kind] ?? (async () => undefined))]);
  return Object.fromEntries(entries) as Extractors;
}
