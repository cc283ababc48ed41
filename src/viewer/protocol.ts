// What the document-index worker offers (workers/browser/doc-index.worker.ts). Blobs cross as handles.
import type { WrapTable } from "./rows.ts";
import type { DocumentIndex, FindOptions, FindResult, IndexRequest } from "./types.ts";

export interface DocIndexWorkerApi {
  /**
   * The document's map; progress is a fraction of bytes read. The worker keeps the line starts
   * under `key`, to compute wrapped rows for the page without sending them back and forth.
   */
  index(blob: Blob, request: IndexRequest, key: number, onProgress?: (fraction: number) => void): Promise<DocumentIndex>;
  /** Which lines of document `key` wrap at `width` characters. */
  wrap(key: number, width: number): Promise<WrapTable>;
  /** Every occurrence of `query`; `index` may come without its line starts (only checkpoints are read). */
  find(blob: Blob, index: DocumentIndex, query: string, options?: FindOptions): Promise<FindResult>;
}
