// Writes workers/python/rlm_runtime/formats.py from the document format registry
// (src/ingest/formats, pythonFormatFacts), so the markers Python counts pages and paragraphs by are
// the registry's: adding a format with places is its file, its line in FORMATS and this file
// regenerated. Like vocabulary.py, the file is generated, not read at boot, so the runtime package
// stays plain Python (the snapshot key hashes it like any other module).
//
//   node --import tsx scripts/python-formats.ts --write
//
// tests/unit/python-formats.test.ts fails when the file on disk differs from what this renders.
import { fileURLToPath } from "node:url";
import { generateWhenRun } from "./generated-file.ts";
import { pythonFormatFacts, type Places } from "../src/ingest/formats/index.ts";

export const PYTHON_FORMATS_FILE = fileURLToPath(new URL("../workers/python/rlm_runtime/formats.py", import.meta.url));

/** A Python str literal: JSON's escapes are Python's for every character JSON escapes. */
const str = (text: string) => JSON.stringify(text);

/** One format's places as a Python dict literal, its keys in the order the type declares them. */
function placesLiteral(places: Places): string {
  return `{${Object.entries(places)
    .map(([key, value]) => `${str(key)}: ${str(String(value))}`)
    .join(", ")}}`;
}

/** The text of formats.py. */
export function renderPythonFormats(): string {
  const entries = pythonFormatFacts().map((f) => `    ${str(f.kind)}: ${placesLiteral(f.places)},`);
  return [
    "# Generated from src/ingest/formats (pythonFormatFacts) by scripts/python-formats.ts; do not edit.",
    "# Change the registry and run: node --import tsx scripts/python-formats.ts --write",
    "",
    "# How the text of each kind of document marks its places beyond lines, by the kind the host",
    '# passes with the document. "page": a page starts with the line before + n + after (n from 1).',
    '# "paragraph": paragraphs are separated by separator. A kind not listed is cited by lines only.',
    "PLACES = {",
    ...entries,
    "}",
    "",
  ].join("\n");
}

generateWhenRun(import.meta.url, PYTHON_FORMATS_FILE, renderPythonFormats);
