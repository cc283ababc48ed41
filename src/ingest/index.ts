// Document ingestion: dropped files, folders, PDFs, Word documents and zips in; documents the
// REPL can load (ContextDocumentInput: { name: doc.path, data: doc.data }) out, with sizes that
// match Python's len(), and a problem for every file that could not be read.
//
// Main thread:  createIngestClient().ingest(files, { onProgress, signal })  (runs in a worker)
// Drops:        collectDroppedFiles(event.dataTransfer)  (inside the drop handler)
// Node:         ingestInNode(inputs) from "./node.ts" (not re-exported here: it loads Node builds)
export type {
  IngestInput,
  IngestLimits,
  IngestOptions,
  IngestPhase,
  IngestProblem,
  IngestProblemCode,
  IngestProgress,
  IngestProgressCallback,
  IngestResult,
  IngestedDocument,
  PdfAssetOptions,
  PdfDocument,
  PythonEncoding,
  TextDocument,
  ZipEntryDocument,
} from "./types.ts";
export { DEFAULT_LIMITS, MiB } from "./types.ts";
export type { IngestWorkerApi } from "./protocol.ts";
export {
  IngestAbortedError,
  IngestClient,
  IngestWorkerError,
  createIngestClient,
  defaultIngestWorker,
  toIngestInputs,
  type IngestCallOptions,
  type IngestWorkerFactory,
} from "./client.ts";
export { collectDroppedFiles, collectEntries, type DroppedEntry, type DroppedFiles } from "./drop.ts";
export { estimateTokens, ingestFiles, resolveLimits } from "./ingest.ts";
export { createExtractors, ExtractorLoadError, type Extractors, type ExtractorLoaders } from "./extractors.ts";
export { decodeBytes, type DecodedText } from "./decode.ts";
export { pageMarker } from "./formats/pdf.ts";
export {
  FORMATS,
  formatOf,
  kindLabel,
  pageMarkOf,
  placesOf,
  pythonFormatFacts,
  type DocumentFormat,
  type Places,
} from "./formats/index.ts";
export { formatBytes } from "./errors.ts";
