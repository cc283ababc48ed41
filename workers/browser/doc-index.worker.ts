// The document viewer's worker: builds a stored document's map and searches it, so opening or
// searching a 100 MB document never blocks the page. API: DocIndexWorkerApi (src/viewer/protocol.ts).
import * as Comlink from "comlink";
import { findAll } from "../../src/viewer/find.ts";
import { buildDocumentIndex } from "../../src/viewer/index-builder.ts";
import type { DocIndexWorkerApi } from "../../src/viewer/protocol.ts";
import { wrapTable } from "../../src/viewer/rows.ts";
import { sequentialReader } from "../../src/viewer/text.ts";
import type { DocumentIndex } from "../../src/viewer/types.ts";

/** The documents indexed in this page, by the client's key: their bytes and map, to read long lines for wrapping. */
const documents = new Map<number, { blob: Blob; index: DocumentIndex }>();

const api: DocIndexWorkerApi = {
  async index(blob, request, key, onProgress) {
    let last = 0;
    const index = await buildDocumentIndex(blob, request, (fraction) => {
      // A few reports a second are plenty; each one is a message to the page.
      const now = performance.now();
      if (onProgress && now - last > 100) {
        last = now;
        void onProgress(fraction);
      }
    });
    // Copies: the page receives the originals' buffers.
    documents.set(key, {
      blob,
      index: { ...index, checkpoints: index.checkpoints.slice(), lineStarts: index.lineStarts.slice(), pageLines: index.pageLines.slice() },
    });
    return Comlink.transfer(index, [index.checkpoints.buffer, index.lineStarts.buffer, index.pageLines.buffer]);
  },
  async wrap(key, width) {
    const doc = documents.get(key);
    if (!doc) throw new Error("that document was not indexed in this worker");
    // Long lines break at spaces, so a phone's narrow rows never cut a word (issue 34 #8).
    const table = await wrapTable(doc.index.lineStarts, doc.index.totalChars, width, sequentialReader(doc.blob, doc.index));
    return Comlink.transfer(table, [table.longLines.buffer, table.extraBefore.buffer, table.breaks.buffer]);
  },
  find: (blob, index, query, options) => findAll(blob, index, query, options),
};

Comlink.expose(api);
