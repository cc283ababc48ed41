// The object the ingest worker exposes. Kept apart from workers/browser/ingest.worker.ts so tests can
// expose the same API over a MessageChannel with Node's parsers.
import type { Extractors } from "./extractors.ts";
import { ingestFiles } from "./ingest.ts";
import type { IngestWorkerApi } from "./protocol.ts";
import type { IngestProgress, IngestProgressCallback } from "./types.ts";

/**
 * `releaseCallback` frees the Comlink proxy of a progress callback once a call is over (its
 * MessagePort would otherwise stay open for the page's lifetime).
 */
export function createIngestWorkerApi(
  extractors: Extractors,
  releaseCallback: (callback: IngestProgressCallback) => void = () => {},
): IngestWorkerApi {
  return {
    async ingest(inputs, options, onProgress) {
      // Through Comlink the callback returns a Promise. Progress is fire-and-forget, and a page
      // that went away must not turn into an unhandled rejection in the worker.
      const report: IngestProgressCallback | undefined = onProgress
        ? (p: IngestProgress) => void Promise.resolve(onProgress(p)).catch(() => {})
        : undefined;
      try {
        return await ingestFiles(inputs, extractors, options ?? {}, report);
      } finally {
        if (onProgress) releaseCallback(onProgress);
      }
    },
  };
}
