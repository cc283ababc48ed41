// pdfjs-dist ships no types for its worker modules. The ingest code imports them only to hand
// pdfjs its in-thread "fake worker" (globalThis.pdfjsWorker), so their shape does not matter.
declare module "pdfjs-dist/build/pdf.worker.mjs" {
  export const WorkerMessageHandler: unknown;
}
declare module "pdfjs-dist/legacy/build/pdf.worker.mjs" {
  export const WorkerMessageHandler: unknown;
}
