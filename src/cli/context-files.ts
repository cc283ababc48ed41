// Documents for the CLI. Files go to the REPL worker by path and the worker reads them itself
// (workers/host-file-node.ts): the host never holds a copy, so a 500 MB file costs its bytes and
// the decoded str inside Python, not four copies on the way there. Stdin has no path, so it is
// read here.
import { isAscii } from "node:buffer";
import { constants } from "node:fs";
import { access, open, stat } from "node:fs/promises";
import { basename, resolve } from "node:path";
import type { ContextDocumentInput } from "../repl/protocol.ts";
import { detectBom } from "../ingest/decode.ts";
import { Utf8Counter } from "../ingest/utf8-count.ts";
import { UsageError } from "./args.ts";

export async function contextDocuments(files: string[], readStdin: () => Promise<Buffer | null>): Promise<ContextDocumentInput[]> {
  if (files.length) {
    const docs: ContextDocumentInput[] = [];
    for (const file of files) {
      const path = resolve(file);
      try {
        if (!(await stat(path)).isFile()) throw new UsageError(`--context-file ${file} is not a file`);
        await access(path, constants.R_OK); // the worker opens it later; fail now, as a usage error
      } catch (err) {
        if (err instanceof UsageError) throw err;
        throw new UsageError(`cannot read --context-file ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
      }
      docs.push({ name: files.length === 1 ? basename(file) : file, path });
    }
    return docs;
  }
  const stdin = await readStdin();
  if (!stdin) throw new UsageError("no document: give --context-file PATH or pipe the document on stdin");
  return [{ name: "stdin", data: new Blob([stdin as Uint8Array<ArrayBuffer>]) }];
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
