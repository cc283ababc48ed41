// Files in, session documents out: reading runs in the ingest worker, paths are made unique
// within the session, and compare mode gets the start of the documents without ever building a
// string of a whole large file.
import type { DocumentPrefixSource } from "../core/direct.ts";
import { decodeLatin1 } from "../ingest/decode.ts";
import { createIngestClient, decodeBytes, type IngestClient, type IngestInput, type IngestProgress } from "../ingest/index.ts";
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

export interface SessionDocument {
  meta: DocumentMeta;
  blob: Blob;
}

let client: IngestClient | null = null;

function uniquePath(path: string, taken: Set<string>): string {
  if (!taken.has(path)) return path;
  const dot = path.lastIndexOf(".");
  const [stem, ext] = dot > path.lastIndexOf("/") + 0 && dot > 0 ? [path.slice(0, dot), path.slice(dot)] : [path, ""];
  for (let n = 2; ; n++) {
    const candidate = `${stem} (${n})${ext}`;
    if (!taken.has(candidate)) return candidate;
  }
}

export async function ingestForSession(
  inputs: IngestInput[],
  takenPaths: Set<string>,
  onProgress: (p: IngestProgressView) => void,
): Promise<{ documents: SessionDocument[]; problems: IngestProblemView[] }> {
  client ??= createIngestClient();
  const result = await client.ingest(
    inputs,
    {
      onProgress: (p: IngestProgress) =>
        onProgress({
          path: p.path,
          phase: p.phase,
          inputIndex: p.inputIndex,
          inputCount: p.inputCount,
          fraction: p.bytesTotal ? p.bytesDone / p.bytesTotal : 0,
        }),
    },
  );
  const taken = new Set(takenPaths);
  const documents = result.documents.map((d) => {
    const path = uniquePath(d.path, taken);
    taken.add(path);
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
}

/**
 * The start of the session's documents, as the REPL would decode them. Several documents are
 * joined with a header line each, in the order they were added.
 */
export function prefixSource(docs: StoredDocument[], metas: DocumentMeta[]): DocumentPrefixSource {
  const byPath = new Map(docs.map((d) => [d.path, d.blob]));
  const ordered = metas.filter((m) => byPath.has(m.path));
  const several = ordered.length > 1;
  const header = (m: DocumentMeta) => (several ? `=== ${m.path} ===\n` : "");
  const totalChars = ordered.reduce((s, m) => s + m.chars + header(m).length + (several ? 2 : 0), 0);
  return {
    totalChars,
    async read(maxChars: number): Promise<string> {
      let out = "";
      for (const m of ordered) {
        if (out.length >= maxChars) break;
        const blob = byPath.get(m.path)!;
        // At most 4 bytes per character: read no more than could possibly be needed.
        const bytes = new Uint8Array(await blob.slice(0, Math.min(blob.size, (maxChars - out.length) * 4 + 4)).arrayBuffer());
        const text = decodePrefix(bytes, m.encoding);
        out += `${header(m)}${text}${several ? "\n\n" : ""}`;
      }
      return out.slice(0, maxChars);
    },
  };
}

/** Decodes the first bytes of a document with the encoding found when it was read. A cut in the
 * middle of a character must not turn UTF-8 text into Latin-1, so this never guesses again. */
function decodePrefix(bytes: Uint8Array, encoding: string | undefined): string {
  if (encoding === "latin-1") return decodeLatin1(bytes);
  if (encoding === "utf-16") {
    const le = bytes[0] === 0xff && bytes[1] === 0xfe;
    return new TextDecoder(le ? "utf-16le" : "utf-16be").decode(bytes.subarray(2));
  }
  if (encoding === "utf-32") return decodeBytes(bytes).text;
  return new TextDecoder("utf-8").decode(bytes); // also drops a UTF-8 BOM
}
