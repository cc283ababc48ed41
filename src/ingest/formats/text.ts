// Plain text, whatever its extension: the bytes are the document, decoded by Python (and counted
// here without decoding, src/ingest/measure.ts). A text file found inside a zip is the same format
// under a kind of its own, so the list can say where it came from.
import type { FormatQuestionInput, TextFormat } from "./types.ts";

export const CODE_EXT = /\.(?:[cm]?[jt]sx?|py|rs|go|java|kt|c|h|cc|cpp|hpp|cs|rb|php|swift|scala|sh|sql)$/i;
const TABLE_EXT = /\.(?:csv|tsv)$/i;
const LOG_EXT = /\.(?:log|jsonl|ndjson)$/i;

/** Text says what it holds by its extension: code, a table, a log. */
function textQuestions(doc: FormatQuestionInput): string[] {
  if (CODE_EXT.test(doc.name))
    return [`What does ${doc.name} do, and where does it start?`, "Which functions look most error-prone, and why?"];
  if (TABLE_EXT.test(doc.name)) return ["What columns does this table have, and how many rows?", "What stands out in these rows?"];
  if (LOG_EXT.test(doc.name)) return ["Which errors or warnings appear most often?", "What happened just before the first error?"];
  return [];
}

/** A plain text file (any extension whose bytes look like text). */
export const textFormat: TextFormat<"text"> = {
  kind: "text",
  label: "text",
  extensions: [],
  places: { unit: "line" },
  questions: textQuestions,
};

/** A text file inside a zip archive. */
export const zipEntryFormat: TextFormat<"zip-entry"> = {
  kind: "zip-entry",
  label: "zip",
  extensions: [],
  places: { unit: "line" },
  questions: textQuestions,
};
