// The ingest worker: reads dropped files into documents off the main thread, so a 1 GB text
// file or a 300-page PDF never freezes the page. API: IngestWorkerApi (src/ingest/protocol.ts).
import * as Comlink from "comlink";
import { createExtractors } from "../../src/ingest/extractors.ts";
import type { IngestProgressCallback } from "../../src/ingest/types.ts";
import { createIngestWorkerApi } from "../../src/ingest/worker-api.ts";

// Each parsed format's parser (src/ingest/formats/), loaded on its first file, not at worker
// start: most drops are text. pdfjs for PDF, mammoth for DOCX.
const extractors = createExtractors({
  pdf: async () => {
    const [pdfjs, worker] = await Promise.all([import("pdfjs-dist"), import("pdfjs-dist/build/pdf.worker.mjs")]);
    // Parse in this thread with pdfjs's "fake worker": this is already a worker, and a nested
    // worker would need its own script URL, bundled and cached for offline use separately.
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
    return pdfjs;
  },
  // mammoth's package.json "browser" field swaps its Node file access for ArrayBuffer input.
  docx: async () => (await import("mammoth")).default,
});

const release = (callback: IngestProgressCallback) =>
  (callback as unknown as Partial<Comlink.Remote<IngestProgressCallback>>)[Comlink.releaseProxy]?.();

Comlink.expose(createIngestWorkerApi(extractors, release));
