// The page's handle on the document-index worker. Each document is indexed once per page load
// (kept per Blob, so reopening a source is instant); finds go to the same worker.
import * as Comlink from "comlink";
import type { DocIndexWorkerApi } from "./protocol.ts";
import type { WrapTable } from "./rows.ts";
import type { DocumentIndex, FindOptions, FindResult, IndexRequest } from "./types.ts";

export class DocumentIndexError extends Error {
  override name = "DocumentIndexError";
  constructor(cause: unknown) {
    super(
      `The document could not be opened for reading (${cause instanceof Error ? cause.message : String(cause)}). ` +
        "Close the viewer and try again; if it keeps failing, remove the document and add it again.",
    );
  }
}

export type DocIndexWorkerFactory = () => Worker;

export const defaultDocIndexWorker: DocIndexWorkerFactory = () =>
  // Vite bundles the worker only when it sees this literal `new Worker(new URL(...))` form.
  new Worker(new URL("../../workers/browser/doc-index.worker.ts", import.meta.url), { type: "module", name: "doc-index" });

export class DocumentIndexer {
  private api: Comlink.Remote<DocIndexWorkerApi> | null = null;
  private readonly indexes = new WeakMap<Blob, { key: number; index: Promise<DocumentIndex> }>();
  private nextKey = 0;

  constructor(private readonly createWorker: DocIndexWorkerFactory = defaultDocIndexWorker) {}

  private remote(): Comlink.Remote<DocIndexWorkerApi> {
    this.api ??= Comlink.wrap<DocIndexWorkerApi>(this.createWorker());
    return this.api;
  }

  /** The document's map, built once per Blob. */
  index(blob: Blob, request: IndexRequest, onProgress?: (fraction: number) => void): Promise<DocumentIndex> {
    let entry = this.indexes.get(blob);
    if (!entry) {
      const key = ++this.nextKey;
      const progress = onProgress ? Comlink.proxy(onProgress) : undefined;
      const index = this.remote()
        .index(blob, request, key, progress)
        .catch((err: unknown) => {
          this.indexes.delete(blob);
          throw new DocumentIndexError(err);
        });
      entry = { key, index };
      this.indexes.set(blob, entry);
    }
    return entry.index;
  }

  /** Which lines of an indexed document wrap at `width` (computed in the worker). */
  async wrap(blob: Blob, width: number): Promise<WrapTable> {
    const entry = this.indexes.get(blob);
    if (!entry) throw new DocumentIndexError(new Error("the document is not indexed yet"));
    await entry.index;
    return this.remote().wrap(entry.key, width);
  }

  async find(blob: Blob, index: DocumentIndex, query: string, options?: FindOptions): Promise<FindResult> {
    // Only the checkpoints are needed: do not copy the line starts (megabytes) to the worker.
    const light: DocumentIndex = { ...index, lineStarts: new Uint32Array(0) };
    return this.remote().find(blob, light, query, options);
  }
}

let shared: DocumentIndexer | null = null;
/** The page's one indexer (one worker, started on first use). */
export function documentIndexer(): DocumentIndexer {
  shared ??= new DocumentIndexer();
  return shared;
}
