// `context` as one document a direct answer can read from either end, without pulling it out
// whole: a plain string as it is, several documents one after another under their paths. The
// join is written once, here, for both readers of it: the direct answer (auto mode), which reads
// Python's `context` through the REPL's probe call (repl-probes.ts), and the page's compare mode,
// which reads the stored documents' bytes (src/app/documents.ts), so the two methods show the
// same text with the same cut. A read is a slice at a time (a huge file costs two slices, not a
// copy) and never a cell's output, so no output cap cuts it (issue 25: a 600,000-character
// document in a 256K window reaches the model whole). A read that comes back short is an error,
// never a silent cut: the direct prompt says exactly what was cut.
import type { DocumentSource } from "./direct.ts";
import { contextLayout, readContext, type ChunkRef, type DocumentLength, type ProbeRepl } from "./repl-probes.ts";

/** Characters [start, end) of one document (Python's characters: code points). */
export type RangeReader = (ref: ChunkRef) => Promise<string>;

/** Python's len() of a JavaScript string: code points (a surrogate pair is one character). */
function codePoints(text: string): number {
  let pairs = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) pairs++;
  }
  return text.length - pairs;
}

async function readExactly(read: RangeReader, ref: ChunkRef): Promise<string> {
  const text = await read(ref);
  if (codePoints(text) !== ref.end - ref.start) {
    throw new Error(
      `Reading \`context\` returned ${codePoints(text)} characters where ${ref.end - ref.start} were asked for; ` +
        "the document may have changed. Ask again.",
    );
  }
  return text;
}

/** A run of the joined text: literal text (a path header, a gap) or a range of one document. */
type Piece = { text: string; length: number } | { doc: string | null; length: number };

function piecesOf(layout: readonly DocumentLength[]): Piece[] {
  if (layout.length === 1 && layout[0]!.doc === null) return [{ doc: null, length: layout[0]!.length }];
  return layout.flatMap((d, i) => {
    const header = `${i ? "\n\n" : ""}=== ${d.doc ?? `document ${i + 1}`} ===\n`;
    return [
      { text: header, length: header.length },
      { doc: d.doc, length: d.length },
    ];
  });
}

/** Characters [from, to) of the joined text. */
async function slice(read: RangeReader, pieces: Piece[], from: number, to: number): Promise<string> {
  const parts: string[] = [];
  let offset = 0;
  for (const piece of pieces) {
    const start = Math.max(from, offset);
    const end = Math.min(to, offset + piece.length);
    if (start < end) {
      parts.push(
        "text" in piece
          ? piece.text.slice(start - offset, end - offset)
          : await readExactly(read, { doc: piece.doc, start: start - offset, end: end - offset }),
      );
    }
    offset += piece.length;
    if (offset >= to) break;
  }
  return parts.join("");
}

/**
 * Documents of these lengths, joined under "=== path ===" lines (one document with no key: as it
 * is), read from either end. `read` is only ever asked for a document's start or its end.
 */
export function joinedSource(layout: readonly DocumentLength[], read: RangeReader): DocumentSource {
  const pieces = piecesOf(layout);
  const totalChars = pieces.reduce((n, p) => n + p.length, 0);
  return {
    totalChars,
    head: (n) => slice(read, pieces, 0, Math.min(totalChars, n)),
    tail: (n) => (n > 0 ? slice(read, pieces, Math.max(0, totalChars - n), totalChars) : Promise.resolve("")),
  };
}

/** The REPL's `context` as a DocumentSource, read through the REPL's probe call. */
export async function replDocumentSource(repl: ProbeRepl): Promise<DocumentSource> {
  return joinedSource(await contextLayout(repl), (ref) => readContext(repl, ref));
}
