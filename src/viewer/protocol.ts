// What the document-index worker offers (workers/doc-index.worker.ts). Blobs cross as handles.
import type { DocumentIndex, FindOptions, FindResult, IndexRequest } from "./types.ts";

export interface DocIndexWorkerApi {
  /** The document's map; progress is a fraction of bytes read. */
  index(blob: Blob, request: IndexRequest, onProgress?: (fraction: number) => void): Promise<DocumentIndex>;
  /** Every occurrence of `query`; `index` may come without its line starts (only checkpoints are read). */
  find(blob: Blob, index: DocumentIndex, query: string, options?: FindOptions): Promise<FindResult>;
}
