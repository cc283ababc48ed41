// Files in, session documents out: reading runs in the ingest worker, paths are made unique
// within the session, and compare mode gets the start of the documents without ever building a
// string of a whole large file.
import { joinedSource } from "../core/context-source.ts";
import type { DocumentSource } from "../core/direct.ts";
import type { SessionDocument } from "../core/session.ts";
import { formatOf } from "../ingest/formats/index.ts";
import { createIngestClient, type IngestClient, type IngestInput, type IngestProgress } from "../ingest/index.ts";
import { UniquePaths } from "../ingest/paths.ts";
import type { DocumentMeta, StoredDocument } from "../store/index.ts";
import { readHeadChars, readTailChars } from "../viewer/text.ts";

export interface IngestProgressView {
  path: string;
  phase: string;
  inputIndex: number;
  inputCount: number;
  /** 0..1 within the current input. */
  fraction: number;
}

export interface IngestProblemView {
  path: string;
  message: string;
}

/** A read file, ready to be stored and added to a session. */
export interface IngestedDocument {
  meta: DocumentMeta;
  blob: Blob;
}

/** How the page reads files (the ingest worker in the browser; injectable for tests). */
export type IngestFiles = (
  inputs: IngestInput[],
  takenPaths: Iterable<string>,
  onProgress: (p: IngestProgressView) => void,
) => Promise<{ documents: IngestedDocument[]; problems: IngestProblemView[] }>;

let client: IngestClient | null = null;

export const ingestForSession: IngestFiles = async (inputs, takenPaths, onProgress) => {
  client ??= createIngestClient();
  const result = await client.ingest(inputs, {
    onProgress: (p: IngestProgress) =>
      onProgress({
        path: p.path,
        phase: p.phase,
        inputIndex: p.inputIndex,
        inputCount: p.inputCount,
        fraction: p.bytesTotal ? p.bytesDone / p.bytesTotal : 0,
      }),
  });
  const paths = new UniquePaths(takenPaths);
  const documents = result.documents.map((d) => {
    const path = paths.claim(d.path);
    const meta: DocumentMeta = {
      path,
      name: d.name,
      kind: d.kind,
      sourceBytes: d.sourceBytes,
      chars: d.chars,
      tokensEstimate: d.tokensEstimate,
      encoding: d.encoding,
      preview: d.preview,
    };
    return { meta, blob: d.data };
  });
  return { documents, problems: result.problems.map((p) => ({ path: p.path, message: p.message })) };
};

/**
 * A document as the session hands it to Python: its bytes, and the kind its record gives, so a
 * PDF is cited by page whatever it is named. A kind this version's registry does not know (a
 * record written by a later version) goes as plain text, as the viewer reads it.
 */
export function sessionDocument(meta: DocumentMeta, blob: Blob): SessionDocument {
  return { path: meta.path, data: blob, kind: formatOf(meta.kind).kind };
}

/** A stored session's documents, in the record's order, each with the kind its record gives. */
export function storedSessionDocuments(docs: readonly StoredDocument[], metas: readonly DocumentMeta[]): SessionDocument[] {
  const byPath = new Map(docs.map((d) => [d.path, d.blob]));
  return metas.flatMap((meta) => {
    const blob = byPath.get(meta.path);
    return blob ? [sessionDocument(meta, blob)] : [];
  });
}

/**
 * The session's documents as one text, read from either end, as the REPL decodes them: compare
 * mode needs the first and last parts of a document that may be far too big to hold. Joined as
 * the direct answer joins Python's `context` (joinedSource), and decoded by the viewer's reader
 * (readHeadChars / readTailChars), which the parity tests hold to Python's own decoding.
 */
export function documentSource(docs: readonly StoredDocument[], metas: DocumentMeta[]): DocumentSource {
  const byPath = new Map(docs.map((d) => [d.path, d.blob]));
  const ordered = metas.filter((m) => byPath.has(m.path));
  const one = ordered.length === 1;
  const layout = ordered.map((m) => ({ doc: one ? null : m.path, length: m.chars }));
  return joinedSource(layout, async (ref) => {
    const meta = one ? ordered[0]! : ordered.find((m) => m.path === ref.doc)!;
    const blob = byPath.get(meta.path)!;
    if (ref.start === 0) return readHeadChars(blob, meta.encoding, ref.end);
    if (ref.end === meta.chars) return readTailChars(blob, meta.encoding, ref.end - ref.start);
    throw new Error("compare mode reads documents from either end only");
  });
}
