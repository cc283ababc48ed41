// Ingest in Node (CLI, tests, benchmarks): the same code as the browser worker, with the Node
// builds of the parsers. pdfjs's legacy build is the one that runs on Node 20 (the modern build
// needs Promise.withResolvers, which Node 20 lacks).
import { createExtractors, type Extractors } from "./extractors.ts";
import { ingestFiles } from "./ingest.ts";
import type { IngestInput, IngestOptions, IngestProgressCallback, IngestResult } from "./types.ts";

let shared: Extractors | null = null;

export function nodeExtractors(): Extractors {
  shared ??= createExtractors({
    pdf: async () => {
      const [pdfjs, worker] = await Promise.all([
        import("pdfjs-dist/legacy/build/pdf.mjs"),
        import("pdfjs-dist/legacy/build/pdf.worker.mjs"),
      ]);
      // Parse in this thread: pdfjs uses globalThis.pdfjsWorker instead of spawning a worker.
      (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
      return pdfjs;
    },
    docx: async () => (await import("mammoth")).default,
  });
  return shared;
}

/** Read files (Blob/File with paths) into documents, in this thread. */
export function ingestInNode(
  inputs: readonly IngestInput[],
  options: IngestOptions = {},
  onProgress?: IngestProgressCallback,
): Promise<IngestResult> {
  return ingestFiles(inputs, nodeExtractors(), options, onProgress);
}
