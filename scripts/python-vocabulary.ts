// Writes workers/python/rlm_runtime/vocabulary.py from src/core/repl-vocabulary.ts, so Python's
// reserved names, the namespace it builds, the names a NameError lists, the helpers' starting
// limits and map_query()'s question are the TypeScript's. The file is generated, not read at boot,
// so the runtime package stays plain Python (the snapshot key hashes it like any other module).
//
//   node --import tsx scripts/python-vocabulary.ts --write
//
// tests/unit/repl-vocabulary.test.ts fails when the file on disk differs from what this renders.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { MAP_PROMPT_TEMPLATE, NOT_FOUND, REPL_VOCABULARY, type HelperLimitDefaults } from "../src/core/repl-vocabulary.ts";

export const PYTHON_VOCABULARY_FILE = fileURLToPath(new URL("../workers/python/rlm_runtime/vocabulary.py", import.meta.url));

/** A Python str literal: JSON's escapes are Python's for every character JSON escapes. */
const str = (text: string) => JSON.stringify(text);
/** A tuple of str, wrapped at 100 characters as the runtime's own tuples are. */
function tuple(names: readonly string[]): string {
  if (names.length === 1) return `(${str(names[0]!)},)`;
  const flat = `(${names.map(str).join(", ")})`;
  if (flat.length <= 80) return flat;
  const lines: string[] = [];
  let line = "   ";
  for (const item of names.map((n) => `${str(n)},`)) {
    if (line.length + 1 + item.length > 100) {
      lines.push(line);
      line = "   ";
    }
    line += ` ${item}`;
  }
  return ["(", ...lines, line, ")"].join("\n");
}

function limits(): HelperLimitDefaults {
  const all: HelperLimitDefaults = {};
  for (const entry of REPL_VOCABULARY) Object.assign(all, entry.limits);
  // In a fixed order (by name), whatever order the entries declare them in.
  return Object.fromEntries(Object.entries(all).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The text of vocabulary.py. */
export function renderPythonVocabulary(): string {
  const names = (filter: (e: (typeof REPL_VOCABULARY)[number]) => boolean) => REPL_VOCABULARY.filter(filter).map((e) => e.name);
  const limitLines = Object.entries(limits()).map(([key, value]) => `    ${str(key)}: ${value},`);
  const signatures = REPL_VOCABULARY.filter((e) => e.kind === "function").map((e) => `    ${str(e.name)}: ${str(e.signature)},`);
  return [
    "# Generated from src/core/repl-vocabulary.ts by scripts/python-vocabulary.ts; do not edit.",
    "# Change the TypeScript and run: node --import tsx scripts/python-vocabulary.ts --write",
    "",
    "# Every name the runtime puts in the namespace: a cell may rebind one, and the next cell finds the",
    "# runtime's again.",
    `RESERVED = ${tuple(names(() => true))}`,
    "",
    "# The helpers the namespace offers, in the order it is built (helpers.py implements each).",
    `FUNCTIONS = ${tuple(names((e) => e.kind === "function"))}`,
    "",
    "# Each helper's signature, as Python must declare it (tests/node/python-runtime.test.ts).",
    "SIGNATURES = {",
    ...signatures,
    "}",
    "",
    '# What a NameError\'s hint names ("Names you can use: ...").',
    `NAME_ERROR_NAMES = ${tuple(names((e) => e.inNameErrors))}`,
    "",
    "# The helpers' limits until the host sends the sub-model's (the \"configure\" probe).",
    "HELPER_LIMITS = {",
    ...limitLines,
    "}",
    "",
    "# map_query()'s answer for a part without the answer, and its question about each part.",
    `NOT_FOUND = ${str(NOT_FOUND)}`,
    "MAP_PROMPT = (",
    ...MAP_PROMPT_TEMPLATE.split(/(?<=\n)/).map((piece) => `    ${str(piece)}`),
    ")",
    "",
  ].join("\n");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes("--write")) {
    writeFileSync(PYTHON_VOCABULARY_FILE, renderPythonVocabulary());
    console.log(`wrote ${PYTHON_VOCABULARY_FILE}`);
  } else {
    process.stdout.write(renderPythonVocabulary());
  }
}
