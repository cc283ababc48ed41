// `context` as one document the direct answer can read from either end, without pulling it out
// of Python whole: a plain string as it is, several documents one after another under their
// paths. Reads go through the REPL probes (repl-probes.ts), a slice at a time, so asking for a
// direct answer about a huge file costs two slices, not a copy of the file.
import type { DocumentSource } from "./direct.ts";
import { contextLayout, readContext, type ProbeRepl } from "./repl-probes.ts";

/** A run of the joined text: literal text (a path header, a gap) or a range of one document. */
type Piece = { text: string; length: number } | { doc: string | null; length: number };

function piecesOf(layout: Array<{ doc: string | null; length: number }>): Piece[] {
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
async function slice(repl: ProbeRepl, pieces: Piece[], from: number, to: number): Promise<string> {
  const parts: string[] = [];
  let offset = 0;
  for (const piece of pieces) {
    const start = Math.max(from, offset);
    const end = Math.min(to, offset + piece.length);
    if (start < end) {
      parts.push(
        "text" in piece
          ? piece.text.slice(start - offset, end - offset)
          : await readContext(repl, { doc: piece.doc, start: start - offset, end: end - offset }),
      );
    }
    offset += piece.length;
    if (offset >= to) break;
  }
  return parts.join("");
}

/** The REPL's `context` as a DocumentSource; several documents are joined under "=== path ===". */
export async function replDocumentSource(repl: ProbeRepl): Promise<DocumentSource> {
  const pieces = piecesOf(await contextLayout(repl));
  const totalChars = pieces.reduce((n, p) => n + p.length, 0);
  return {
    totalChars,
    head: (n) => slice(repl, pieces, 0, Math.min(totalChars, n)),
    tail: (n) => (n > 0 ? slice(repl, pieces, Math.max(0, totalChars - n), totalChars) : Promise.resolve("")),
  };
}
