// The document viewer's worker: builds a stored document's map and searches it, so opening or
// searching a 100 MB document never blocks the page. API: DocIndexWorkerApi (src/viewer/protocol.ts).
import * as Comlink from "comlink";
import { findAll } from "../src/viewer/find.ts";
import { buildDocumentIndex } from "../src/viewer/index-builder.ts";
import type { DocIndexWorkerApi } from "../src/viewer/protocol.ts";
import { wrapTable } from "../src/viewer/rows.ts";

/** Line starts of the documents indexed in this page, by the client's key. */
const lines = new Map<number, { lineStarts: Uint32Array; totalChars: number }>();

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
    lines.set(key, { lineStarts: index.lineStarts.slice(), totalChars: index.totalChars });
    return Comlink.transfer(index, [index.checkpoints.buffer, index.lineStarts.buffer, index.pageLines.buffer]);
  },
  async wrap(key, width) {
    const doc = lines.get(key);
    if (!doc) throw new Error("that document was not indexed in this worker");
    const table = wrapTable(doc.lineStarts, doc.totalChars, width);
    return Comlink.transfer(table, [table.longLines.buffer, table.extraBefore.buffer]);
  },
  find: (blob, index, query, options) => findAll(blob, index, query, options),
};

Comlink.expose(api);
