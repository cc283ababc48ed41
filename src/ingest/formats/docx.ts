// The Word (DOCX) format: text through mammoth, paragraphs separated by a blank line, which the
// sources and Python count paragraphs by. mammoth is passed in, like pdfjs, so it loads only when
// a .docx is actually dropped.
//
// Before mammoth reads anything, the package's XML parts are checked for a document type
// declaration. Word never writes one (Office Open XML forbids DTDs in its parts); a DOCTYPE with
// entities is how XXE (an entity that names a file or URL) and "billion laughs" (entities that
// expand exponentially) attacks are built. Such a file used to fail with
// "[xmldom error] entity not found"; it is now refused, unread, with a message that says so.
import { unzipSync } from "fflate";
import type Mammoth from "mammoth";
import { CorruptFileError, UnsafeDocumentError } from "../errors.ts";
import type { ExtractedFormat } from "./types.ts";

export type MammothModule = Pick<typeof Mammoth, "extractRawText">;

/** The parts mammoth parses as XML. */
const XML_PART = /(?:\.xml|\.rels)$/i;
/** A part larger than this is not inflated for the check (mammoth's own limits then apply). */
const MAX_CHECKED_PART = 256 * 1024 * 1024;
/** A declaration can only come before the root element; this much covers any real prolog. */
const PROLOG_BYTES = 64 * 1024;

/** The name of the first XML part that declares a document type, or null. */
export function partWithDoctype(bytes: Uint8Array): string | null {
  let parts: Record<string, Uint8Array>;
  try {
    parts = unzipSync(bytes, { filter: (f) => XML_PART.test(f.name) && f.originalSize <= MAX_CHECKED_PART });
  } catch {
    return null; // not a readable zip: mammoth reports that in its own words
  }
  const decoder = new TextDecoder("utf-8", { fatal: false });
  for (const [name, data] of Object.entries(parts)) {
    // UTF-16 parts have NULs between the letters: drop them so "<!DOCTYPE" is still seen.
    const prolog = decoder.decode(data.subarray(0, PROLOG_BYTES)).replace(/\0/g, "");
    if (/<!DOCTYPE|<!ENTITY/i.test(prolog)) return name;
  }
  return null;
}

export async function extractDocxText(bytes: Uint8Array, mammoth: MammothModule): Promise<string> {
  const unsafe = partWithDoctype(bytes);
  if (unsafe) throw new UnsafeDocumentError(unsafe);
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  // mammoth's browser build reads `arrayBuffer`, its Node build reads `buffer` (JSZip accepts an
  // ArrayBuffer there too): giving both lets one call work in the worker and in Node.
  const input = { arrayBuffer: buffer, buffer } as unknown as Parameters<MammothModule["extractRawText"]>[0];
  try {
    const result = await mammoth.extractRawText(input);
    return result.value.replace(/\s+$/, "");
  } catch (err) {
    throw new CorruptFileError(
      `This Word document could not be read (${err instanceof Error ? err.message : String(err)}); ` +
        "open it in Word or LibreOffice and save it again as .docx.",
    );
  }
}

/** A Word document is a zip package holding word/document.xml. */
export const docxFormat: ExtractedFormat<"docx", object, MammothModule> = {
  kind: "docx",
  label: "docx",
  extensions: ["docx"],
  // mammoth writes exactly one blank line between paragraphs.
  places: { unit: "paragraph", separator: "\n\n" },
  reader: {
    zipEntry: "word/document.xml",
    parser: "Word",
    sizeName: "DOCX",
    misnamed: "This file is named .docx but is not a Word document (not a zip package); it may be damaged.",
    empty: "This Word document contains no text.",
    async extract(bytes, mammoth) {
      return { text: await extractDocxText(bytes, mammoth), fields: {} };
    },
  },
};
