// The PDF format: text of every page through pdfjs, each page starting with a marker line the
// viewer, the sources and Python count pages by. The pdfjs module is passed in rather than
// imported: browsers load the modern build inside the ingest worker, Node (tests, CLI) loads the
// legacy build, and neither belongs in the main thread's bundle.
import type * as Pdfjs from "pdfjs-dist";
import { CorruptFileError, EncryptedFileError, NoTextLayerError } from "../errors.ts";
import type { PdfAssetOptions } from "../types.ts";
import type { ExtractedFormat } from "./types.ts";

export type PdfjsModule = Pick<typeof Pdfjs, "getDocument">;

export interface PdfText {
  /** "--- page 1 ---\n\n<text>\n\n--- page 2 ---\n\n<text>…" (see PdfDocument). */
  text: string;
  pages: number;
  pagesWithoutText: number;
}

/** What a PDF's documents carry beyond every document's fields. */
export interface PdfFields {
  pages: number;
  /** Pages whose text layer is empty (scanned images, figures). */
  pagesWithoutText: number;
}

const PAGE_BEFORE = "--- page ";
const PAGE_AFTER = " ---";

/** The marker line that starts page `n` (1-based) in extracted PDF text. */
export function pageMarker(n: number): string {
  return `${PAGE_BEFORE}${n}${PAGE_AFTER}`;
}

export function joinPages(pageTexts: string[]): string {
  return pageTexts.map((text, i) => `${pageMarker(i + 1)}\n\n${text}`).join("\n\n");
}

interface TextPiece {
  str?: string;
  hasEOL?: boolean;
}

/** One page's text items as lines: pdfjs marks the last item of each line with hasEOL. */
export function pageText(items: readonly TextPiece[]): string {
  let out = "";
  for (const item of items) {
    if (typeof item.str !== "string") continue; // marked-content markers carry no text
    out += item.str;
    if (item.hasEOL) out += "\n";
  }
  return out.replace(/[ \t\n]+$/, "");
}

/** Map pdfjs's failures (matched by name: its classes differ between builds) to ours. */
export function pdfError(err: unknown): Error {
  const name = err instanceof Error ? err.name : "";
  const message = err instanceof Error ? err.message : String(err);
  if (name === "PasswordException") {
    return new EncryptedFileError(
      "This PDF is password-protected; open it with its password, save an unprotected copy (for example with " +
        "Print to PDF) and add that.",
    );
  }
  if (name === "InvalidPDFException") {
    return new CorruptFileError(`This PDF is not readable (${message}); it may be damaged or incomplete.`);
  }
  return new CorruptFileError(`This PDF could not be read (${name ? `${name}: ` : ""}${message}); it may be damaged.`);
}

/**
 * Extract the text layer of every page. Throws EncryptedFileError, CorruptFileError, or
 * NoTextLayerError when no page has any text.
 */
export async function extractPdfText(
  bytes: Uint8Array,
  pdfjs: PdfjsModule,
  assets: PdfAssetOptions = {},
  onPage?: (done: number, total: number) => void,
): Promise<PdfText> {
  const task = pdfjs.getDocument({
    data: bytes,
    // Fonts are only parsed for their text mapping: no eval'd glyph programs, no FontFace objects
    // (a worker has no document to attach them to), no system font lookups.
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    enableXfa: false,
    verbosity: 0,
    ...(assets.cMapUrl ? { cMapUrl: assets.cMapUrl, cMapPacked: true } : {}),
    ...(assets.standardFontDataUrl ? { standardFontDataUrl: assets.standardFontDataUrl } : {}),
  });
  let doc: Awaited<typeof task.promise>;
  try {
    doc = await task.promise;
  } catch (err) {
    await task.destroy().catch(() => {});
    throw pdfError(err);
  }
  try {
    const texts: string[] = [];
    let pagesWithoutText = 0;
    for (let n = 1; n <= doc.numPages; n++) {
      let text = "";
      try {
        const page = await doc.getPage(n);
        const content = await page.getTextContent();
        text = pageText(content.items as TextPiece[]);
        page.cleanup();
      } catch (err) {
        // One broken page should not lose the others: say so where its text would be.
        text = `[page ${n} could not be read: ${err instanceof Error ? err.message : String(err)}]`;
      }
      if (text.trim() === "") pagesWithoutText++;
      texts.push(text);
      onPage?.(n, doc.numPages);
    }
    if (texts.length === 0) throw new CorruptFileError("This PDF has no pages.");
    if (pagesWithoutText === texts.length) throw new NoTextLayerError();
    return { text: joinPages(texts), pages: texts.length, pagesWithoutText };
  } catch (err) {
    if (err instanceof NoTextLayerError || err instanceof CorruptFileError) throw err;
    throw pdfError(err);
  } finally {
    await doc.destroy().catch(() => {});
  }
}

const PDF_SIGNATURE = Array.from("%PDF-", (c) => c.charCodeAt(0));

/** pdfjs accepts a `%PDF-` header anywhere in the first 1,024 bytes; so do we. */
export function isPdfHead(head: Uint8Array): boolean {
  const limit = Math.min(head.length, 1024) - PDF_SIGNATURE.length;
  outer: for (let i = 0; i <= limit; i++) {
    for (let j = 0; j < PDF_SIGNATURE.length; j++) if (head[i + j] !== PDF_SIGNATURE[j]) continue outer;
    return true;
  }
  return false;
}

/**
 * Text extracted from a PDF's text layer. Every page starts with a marker line, and pages are
 * separated by a blank line:
 *   "--- page 1 ---\n\n<text of page 1>\n\n--- page 2 ---\n\n<text of page 2>"
 * so `re.split(r"\n*--- page \d+ ---\n\n", context)` recovers the pages.
 */
export const pdfFormat: ExtractedFormat<"pdf", PdfFields, PdfjsModule> = {
  kind: "pdf",
  label: "pdf",
  extensions: ["pdf"],
  places: { unit: "page", before: PAGE_BEFORE, after: PAGE_AFTER },
  reader: {
    head: isPdfHead,
    parser: "PDF",
    sizeName: "PDF",
    misnamed: "This file is named .pdf but does not start like a PDF; it may be damaged, or not a PDF.",
    async extract(bytes, pdfjs, options) {
      const { text, pages, pagesWithoutText } = await extractPdfText(bytes, pdfjs, options.pdf, options.onProgress);
      return { text, fields: { pages, pagesWithoutText } };
    },
  },
};
