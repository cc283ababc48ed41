// Document ingestion: dropped files, folders, PDFs, Word documents and zips in; documents the
// REPL can load (ContextDocumentInput: { name: doc.path, data: doc.data }) out, with sizes that
// match Python's len(), and a problem for every file that could not be read.
//
// Main thread:  createIngestClient().ingest(files, { onProgress, signal })  (runs in a worker)
// Drops:        collectDroppedFiles(event.dataTransfer)  (inside the drop handler)
// Node:         ingestInNode(inputs) from "./node.ts" (not re-exported here: it loads Node builds)
export type { IngestInput, IngestProgress } from "./types.ts";
export { IngestClient, createIngestClient, toIngestInputs } from "./client.ts";
export { collectDroppedFiles } from "./drop.ts";
export { kindLabel } from "./formats/index.ts";
