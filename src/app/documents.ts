// Files in, session documents out: reading runs in the ingest worker, paths are made unique
// within the session, and compare mode gets the start of the documents without ever building a
// string of a whole large file.
import type { DocumentSource } from "../core/direct.ts";
import { decodeLatin1 } from "../ingest/decode.ts";
import { createIngestClient, decodeBytes, type IngestClient, type IngestInput, type IngestProgress } from "../ingest/index.ts";
import { UniquePaths } from "../ingest/paths.ts";
import type { DocumentMeta, StoredDocument } from "../store/index.ts";

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
 * The session's documents as one text, read from either end, as the REPL would decode them:
 * compare mode needs the first and last parts of a document that may be far too big to hold.
 * Several documents are joined under a header line each, in the order they were added.
 */
export function documentSource(docs: readonly StoredDocument[], metas: DocumentMeta[]): DocumentSource {
  const byPath = new Map(docs.map((d) => [d.path, d.blob]));
  const ordered = metas.filter((m) => byPath.has(m.path));
  const several = ordered.length > 1;
  const header = (m: DocumentMeta) => (several ? `=== ${m.path} ===\n` : "");
  const sep = several ? "\n\n" : "";
  const parts = ordered.map((m) => ({ meta: m, blob: byPath.get(m.path)!, length: header(m).length + m.chars + sep.length }));
  const totalChars = parts.reduce((s, p) => s + p.length, 0);
  // At most 4 bytes per character: read no more of a file than could possibly be needed.
  const headOf = async (p: (typeof parts)[number], n: number) => {
    const bytes = new Uint8Array(await p.blob.slice(0, Math.min(p.blob.size, n * 4 + 4)).arrayBuffer());
    return `${header(p.meta)}${decodeSlice(bytes, p.meta.encoding, "head")}${sep}`.slice(0, n);
  };
  const tailOf = async (p: (typeof parts)[number], n: number) => {
    const from = Math.max(0, p.blob.size - (n * 4 + 4));
    const start = p.meta.encoding === "utf-16" ? from - (from % 2) : from;
    const bytes = new Uint8Array(await p.blob.slice(start, p.blob.size).arrayBuffer());
    const text =
      start === 0 ? `${header(p.meta)}${decodeSlice(bytes, p.meta.encoding, "head")}` : decodeSlice(bytes, p.meta.encoding, "tail");
    const whole = `${text}${sep}`;
    return whole.slice(Math.max(0, whole.length - n));
  };
  return {
    totalChars,
    async head(n) {
      let out = "";
      for (const p of parts) {
        if (out.length >= n) break;
        out += await headOf(p, n - out.length);
      }
      return out.slice(0, n);
    },
    async tail(n) {
      let out = "";
      for (const p of [...parts].reverse()) {
        if (out.length >= n) break;
        out = (await tailOf(p, n - out.length)) + out;
      }
      return out.slice(Math.max(0, out.length - n));
    },
  };
}

/**
 * Decodes part of a document with the encoding found when it was read. A cut in the middle of a
 * character must not turn UTF-8 text into Latin-1, so this never guesses again; a character cut
 * at the start of a tail slice is dropped.
 */
function decodeSlice(bytes: Uint8Array, encoding: string | undefined, end: "head" | "tail"): string {
  let text: string;
  if (encoding === "latin-1") text = decodeLatin1(bytes);
  else if (encoding === "utf-16") {
    const bomLE = bytes[0] === 0xff && bytes[1] === 0xfe;
    const bomBE = bytes[0] === 0xfe && bytes[1] === 0xff;
    // A tail slice has no BOM; UTF-16 text without BOM never reaches here (it is refused as binary).
    text = new TextDecoder(bomBE ? "utf-16be" : "utf-16le").decode(end === "head" && (bomLE || bomBE) ? bytes.subarray(2) : bytes);
  } else if (encoding === "utf-32") text = decodeBytes(bytes).text;
  else text = new TextDecoder("utf-8").decode(bytes); // also drops a UTF-8 BOM
  if (end === "tail") text = text.replace(/^\uFFFD+/, "");
  return text;
}
