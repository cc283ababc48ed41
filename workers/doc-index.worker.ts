// The document viewer's worker: builds a stored document's map and searches it, so opening or
// searching a 100 MB document never blocks the page. API: DocIndexWorkerApi (src/viewer/protocol.ts).
import * as Comlink from "comlink";
import { findAll } from "../src/viewer/find.ts";
import { buildDocumentIndex } from "../src/viewer/index-builder.ts";
import type { DocIndexWorkerApi } from "../src/viewer/protocol.ts";

const api: DocIndexWorkerApi = {
  async index(blob, request, onProgress) {
    let last = 0;
    const index = await buildDocumentIndex(blob, request, (fraction) => {
      // A few reports a second are plenty; each one is a message to the page.
      const now = performance.now();
      if (onProgress && now - last > 100) {
        last = now;
        void onProgress(fraction);
      }
    });
    return Comlink.transfer(index, [index.checkpoints.buffer, index.lineStarts.buffer, index.pageLines.buffer]);
  },
  find: (blob, index, query, options) => findAll(blob, index, query, options),
};

Comlink.expose(api);
