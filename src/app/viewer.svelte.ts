// Which document the viewer shows, and where: a source chip opens it at the passage, the
// document list opens it at the start. The viewer itself (src/ui/DocumentViewer.svelte) reads
// the Blob through its own worker.
import type { RankedSource } from "../core/evidence.ts";
import { pageMarkOf } from "../ingest/formats/index.ts";
import type { DocumentMeta } from "../store/index.ts";
import type { IndexRequest } from "../viewer/types.ts";

export interface ViewerRequest {
  meta: DocumentMeta;
  blob: Blob;
  /** The passage to highlight and scroll to (character offsets, as Python counts them). */
  target?: { start: number; end: number };
  /** Everything the run read around it, shaded more lightly. */
  extent?: { start: number; end: number };
  /** What the person clicked, e.g. "book.txt · line 88,412". */
  label?: string;
}

export class ViewerState {
  current = $state<ViewerRequest | null>(null);

  show(request: ViewerRequest): void {
    this.current = request;
  }

  close(): void {
    this.current = null;
  }
}

/** What the viewer's map of a document needs: the codec Python used, and its format's page marker. */
export function indexRequestFor(meta: DocumentMeta): IndexRequest {
  const pageMark = pageMarkOf(meta.kind);
  return { encoding: meta.encoding, ...(pageMark ? { pageMark } : {}) };
}

/** The viewer request for a source of an answer. */
export function sourceRequest(meta: DocumentMeta, blob: Blob, source: RankedSource, label: string): ViewerRequest {
  return {
    meta,
    blob,
    target: { start: source.start, end: source.end },
    extent: { start: source.extent.start, end: source.extent.end },
    label,
  };
}
