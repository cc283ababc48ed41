// The ingest worker's API, exposed with Comlink (workers/browser/ingest.worker.ts) and wrapped by
// IngestClient (client.ts). Everything passed is structured-cloneable; the progress callback
// must be a top-level argument wrapped in Comlink.proxy (Comlink ignores nested proxies).
import type { IngestInput, IngestOptions, IngestProgressCallback, IngestResult } from "./types.ts";

export interface IngestWorkerApi {
  ingest(inputs: IngestInput[], options: IngestOptions, onProgress?: IngestProgressCallback): Promise<IngestResult>;
}
