// Text of a Word document through mammoth (paragraphs separated by a blank line). mammoth is
// passed in, like pdfjs, so it loads only when a .docx is actually dropped.
import type Mammoth from "mammoth";
import { CorruptFileError } from "./errors.ts";

export type MammothModule = Pick<typeof Mammoth, "extractRawText">;

export async function extractDocxText(bytes: Uint8Array, mammoth: MammothModule): Promise<string> {
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
