// Documents for the CLI. Text files go to the REPL worker by path and the worker reads them
// itself (workers/node/host-file.node.ts): the host never holds a copy, so a 500 MB file costs its
// bytes and the decoded str inside Python, not four copies on the way there. Stdin has no path,
// so it is read here. Anything that is not text (a zip, a PDF, a Word file, an image) goes
// through the page's own ingest (src/ingest), so a zip becomes the same `context` dict the page
// makes of it and a binary file is refused with the page's reason; nothing empty is accepted.
import { isAscii } from "node:buffer";
import { constants, openAsBlob } from "node:fs";
import { access, open, stat } from "node:fs/promises";
import { basename, resolve } from "node:path";
import type { ContextDocumentInput } from "../repl/protocol.ts";
import { detectBom } from "../ingest/decode.ts";
import { SNIFF_BYTES, sniff } from "../ingest/sniff.ts";
import { Utf8Counter } from "../ingest/utf8-count.ts";
import { UsageError } from "./args.ts";

/**
 * The documents the command line names, in order. `note` hears what was done beyond reading a
 * text file (a zip unpacked, its entries left out and why).
 */
export async function contextDocuments(
  files: string[],
  readStdin: () => Promise<Buffer | null>,
  note: (line: string) => void = () => undefined,
): Promise<ContextDocumentInput[]> {
  if (files.length) {
    const docs: ContextDocumentInput[] = [];
    for (const file of files) docs.push(...(await fileDocuments(file, files.length === 1 ? basename(file) : file, note)));
    return docs;
  }
  const stdin = await readStdin();
  if (!stdin) throw new UsageError("no document: give --context-file PATH or pipe the document on stdin");
  if (!stdin.byteLength) throw new UsageError("the document on stdin is empty: pipe a document, or give --context-file PATH");
  const data = new Blob([stdin as Uint8Array<ArrayBuffer>]);
  if (sniff(stdin.subarray(0, SNIFF_BYTES), "stdin").type === "text") return [{ name: "stdin", data, kind: "text" }];
  return ingested(data, "stdin", "stdin", note);
}

async function fileDocuments(file: string, name: string, note: (line: string) => void): Promise<ContextDocumentInput[]> {
  const path = resolve(file);
  let size: number;
  let head: Uint8Array;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new UsageError(`--context-file ${file} is not a file`);
    size = info.size;
    await access(path, constants.R_OK); // the worker opens it later; fail now, as a usage error
    head = await readHead(path);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read --context-file ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  if (size === 0) throw new UsageError(`--context-file ${file} is empty: there is nothing in it to ask about`);
  // Text, whatever its name: cited by lines, read by the sandbox's worker itself.
  if (sniff(head, name).type === "text") return [{ name, path, kind: "text" }];
  return ingested(await openAsBlob(path), name, `--context-file ${file}`, note);
}

async function readHead(path: string): Promise<Uint8Array> {
  const handle = await open(path, "r");
  try {
    const buffer = new Uint8Array(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * A file that is not plain text, read as the page reads a dropped file: a zip's entries become
 * documents `name/inner/path`, a PDF or Word file its text; what gives no document is refused
 * (nothing at all) or left out with the page's reason (some entries of a zip).
 */
async function ingested(data: Blob, name: string, what: string, note: (line: string) => void): Promise<ContextDocumentInput[]> {
  const { ingestInNode } = await import("../ingest/node.ts");
  const { documents, problems } = await ingestInNode([{ file: data, path: name }]);
  if (!documents.length) {
    const why = problems.map((p) => (p.path === name ? p.message : `${p.path}: ${p.message}`)).join(" ");
    throw new UsageError(`${what} gives no text to read: ${why || "it holds no documents."}`);
  }
  if (documents.some((d) => d.archive)) note(`rlm: ${name}: unpacked ${documents.length} document(s) from the archive into context.\n`);
  for (const p of problems) note(`rlm: left out ${p.path}: ${p.message}\n`);
  return documents.map((d) => ({ name: d.path, data: d.data, kind: d.kind }));
}

const CHUNK = 1 << 20;

/**
 * How many characters Python's decode_bytes (workers/python/rlm_runtime/documents.py) will make of a document, counted
 * from its bytes without decoding them, so the first model request can describe `context` before
 * Python has it: strict UTF-8 (a UTF-8 BOM dropped), else Latin-1, one character per byte.
 * Undefined for a UTF-16/32 BOM, or when the file cannot be read: then the run waits for Python.
 * Read a megabyte at a time (a 500 MB file is never held); pure ASCII, the usual case, is
 * counted without a look at each byte.
 */
export async function decodedChars(doc: ContextDocumentInput): Promise<number | undefined> {
  if (!("path" in doc)) return countChunks([new Uint8Array(await doc.data.arrayBuffer())]);
  let handle;
  try {
    handle = await open(doc.path, "r");
    const buffer = new Uint8Array(CHUNK);
    const chunks = async function* () {
      for (;;) {
        const { bytesRead } = await handle!.read(buffer, 0, CHUNK, null);
        if (!bytesRead) return;
        yield buffer.subarray(0, bytesRead);
      }
    };
    return await countChunks(chunks());
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

async function countChunks(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<number | undefined> {
  const counter = new Utf8Counter();
  let bytes = 0;
  let first = true;
  let bom = false;
  for await (const chunk of chunks) {
    if (first) {
      first = false;
      const mark = detectBom(chunk);
      // A UTF-16/32 byte-order mark: not worth predicting.
      if (mark && mark.encoding !== "utf-8-sig") return undefined;
      bom = mark !== null;
    }
    bytes += chunk.byteLength;
    if (!counter.valid) continue; // Latin-1 then: only the byte count matters
    if (counter.atBoundary && isAscii(chunk)) counter.chars += chunk.byteLength;
    else counter.push(chunk);
  }
  // With a UTF-8 BOM Python decodes with errors="replace": only a valid file is predicted.
  if (bom) return counter.finish() ? counter.chars - 1 : undefined;
  return counter.finish() ? counter.chars : bytes;
}
