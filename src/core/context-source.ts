// `context` as one document the direct answer can read from either end, without pulling it out
// of Python whole: a plain string as it is, several documents one after another under their
// paths. Reads go through the REPL's probe call (repl-probes.ts), a slice at a time, so asking
// for a direct answer about a huge file costs two slices, not a copy of the file; and a read is
// never a cell's output, so no output cap cuts it (issue 25: a 600,000-character document in a
// 256K window reaches the model whole). A read that comes back short is an error, never a
// silent cut: the direct prompt says exactly what was cut.
import type { DocumentSource } from "./direct.ts";
import { contextLayout, readContext, type ChunkRef, type ProbeRepl } from "./repl-probes.ts";

/** Python's len() of a JavaScript string: code points (a surrogate pair is one character). */
function codePoints(text: string): number {
  let pairs = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) pairs++;
  }
  return text.length - pairs;
}

async function readExactly(repl: ProbeRepl, ref: ChunkRef): Promise<string> {
  const text = await readContext(repl, ref);
  if (codePoints(text) !== ref.end - ref.start) {
    throw new Error(
      `The Python REPL returned ${codePoints(text)} characters of \`context\` where ${ref.end - ref.start} were asked for; ` +
        "the document may have changed. Ask again.",
    );
  }
  return text;
}

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
          : await readExactly(repl, { doc: piece.doc, start: start - offset, end: end - offset }),
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
