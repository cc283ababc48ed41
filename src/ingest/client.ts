// The main thread's handle on the ingest worker. Files cross to the worker as File handles (no
// bytes are copied) and documents come back holding Blobs, so the main thread never builds a
// string out of a big file.
import * as Comlink from "comlink";
import { inputPath } from "./paths.ts";
import type { IngestWorkerApi } from "./protocol.ts";
import type { IngestInput, IngestLimits, IngestOptions, IngestProgressCallback, IngestResult, PdfAssetOptions } from "./types.ts";

export class IngestAbortedError extends Error {
  override name = "IngestAbortedError";
  constructor() {
    super("Reading the files was cancelled.");
  }
}

export class IngestWorkerError extends Error {
  override name = "IngestWorkerError";
  constructor(detail: string) {
    super(
      `The file reader stopped unexpectedly (${detail}). ` + "Try again with fewer or smaller files; if it keeps failing, reload the page.",
    );
  }
}

export interface IngestCallOptions {
  limits?: Partial<IngestLimits>;
  pdf?: PdfAssetOptions;
  /** Called about ten times a second while reading, and at each file's start and end. */
  onProgress?: IngestProgressCallback;
  /**
   * Aborting stops the worker at once (it is rebuilt for the next call); other calls in flight
   * on the same client are cancelled with it.
   */
  signal?: AbortSignal;
}

/** A worker as the client needs it; lets tests and other runtimes supply their own. */
export type IngestWorkerFactory = () => Worker;

export const defaultIngestWorker: IngestWorkerFactory = () =>
  // Vite bundles the worker only when it sees this literal `new Worker(new URL(...))` form.
  new Worker(new URL("../../workers/browser/ingest.worker.ts", import.meta.url), { type: "module", name: "ingest" });

/** Files from an <input type="file"> (with `webkitdirectory`, paths come along) or a drop. */
export function toIngestInputs(files: Iterable<File | IngestInput>): IngestInput[] {
  return Array.from(files, (f) => {
    const input: IngestInput = f instanceof Blob ? { file: f } : f;
    return { file: input.file, path: inputPath(input) };
  });
}

interface Pending {
  reject: (err: Error) => void;
}

export class IngestClient {
  private worker: Worker | null = null;
  private api: Comlink.Remote<IngestWorkerApi> | null = null;
  private readonly pending = new Set<Pending>();

  constructor(private readonly createWorker: IngestWorkerFactory = defaultIngestWorker) {}

  private start(): Comlink.Remote<IngestWorkerApi> {
    if (this.api) return this.api;
    const worker = this.createWorker();
    worker.addEventListener("error", (event) => {
      event.preventDefault();
      this.stop(new IngestWorkerError(event.message || "worker error"));
    });
    worker.addEventListener("messageerror", () => this.stop(new IngestWorkerError("a message could not be read")));
    this.worker = worker;
    this.api = Comlink.wrap<IngestWorkerApi>(worker);
    return this.api;
  }

  /** Kill the worker and fail every call in flight with `reason`. */
  private stop(reason: Error): void {
    this.worker?.terminate();
    this.worker = null;
    this.api = null;
    for (const p of this.pending) p.reject(reason);
    this.pending.clear();
  }

  /** Read files into documents. Bad files become `problems`; this rejects only on cancel or crash. */
  async ingest(files: Iterable<File | IngestInput>, options: IngestCallOptions = {}): Promise<IngestResult> {
    const { signal, onProgress, limits, pdf } = options;
    if (signal?.aborted) throw new IngestAbortedError();
    const inputs = toIngestInputs(files);
    const workerOptions: IngestOptions = { ...(limits ? { limits } : {}), ...(pdf ? { pdf } : {}) };
    const api = this.start();
    let pending: Pending | undefined;
    const stopped = new Promise<never>((_, reject) => {
      pending = { reject };
      this.pending.add(pending);
    });
    const onAbort = () => this.stop(new IngestAbortedError());
    signal?.addEventListener("abort", onAbort, { once: true });
    // Progress travels on the callback proxy's own MessagePort, the result on the worker's:
    // the two are not ordered, so a report sent just before the result can arrive after it.
    // Once the call is over, reports are dropped; else a late "reading… 1 of 1" put the bar
    // back on screen after the caller had cleared it (seen after an empty file or a nested zip).
    let open = true;
    const report: IngestProgressCallback | undefined = onProgress && ((p) => (open ? onProgress(p) : undefined));
    try {
      const call = report ? api.ingest(inputs, workerOptions, Comlink.proxy(report)) : api.ingest(inputs, workerOptions);
      return await Promise.race([call, stopped]);
    } finally {
      open = false;
      signal?.removeEventListener("abort", onAbort);
      if (pending) this.pending.delete(pending);
    }
  }

  /** Stop the worker; a later `ingest` starts a new one. */
  dispose(): void {
    this.stop(new IngestAbortedError());
  }
}

export function createIngestClient(createWorker?: IngestWorkerFactory): IngestClient {
  return new IngestClient(createWorker);
}
