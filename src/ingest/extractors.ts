// The heavy parsers (pdfjs, mammoth), loaded on first use and then kept. Where they come from
// differs by runtime, so callers pass loaders: the ingest worker imports the browser builds,
// src/ingest/node.ts the Node ones.
import { extractDocxText, type MammothModule } from "./docx.ts";
import { IngestError } from "./errors.ts";
import { extractPdfText, type PdfText, type PdfjsModule } from "./pdf.ts";
import type { PdfAssetOptions } from "./types.ts";

export interface Extractors {
  pdf(bytes: Uint8Array, assets: PdfAssetOptions, onPage?: (done: number, total: number) => void): Promise<PdfText>;
  docx(bytes: Uint8Array): Promise<string>;
}

export interface ExtractorLoaders {
  pdfjs: () => Promise<PdfjsModule>;
  mammoth: () => Promise<MammothModule>;
}

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

export function createExtractors(loaders: ExtractorLoaders): Extractors {
  const pdfjs = once("PDF", loaders.pdfjs);
  const mammoth = once("Word", loaders.mammoth);
  return {
    async pdf(bytes, assets, onPage) {
      return extractPdfText(bytes, await pdfjs(), assets, onPage);
    },
    async docx(bytes) {
      return extractDocxText(bytes, await mammoth());
    },
  };
}
