// Lints the REPL's Python (workers/python/**/*.py) with Ruff, in check mode: prints each finding as
// path:line:column CODE message and exits 1 if there is any. Run by `npm run check`.
//
// Ruff runs as WebAssembly from npm (@astral-sh/ruff-wasm-nodejs, pinned), so a fresh clone
// needs nothing but `npm ci`: no Python, pip or virtualenv on a machine whose only other Python
// is Pyodide's, and the version is locked with everything else in package-lock.json.
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { PositionEncoding, Workspace } from "@astral-sh/ruff-wasm-nodejs";

const root = fileURLToPath(new URL("../", import.meta.url));
const pythonDir = join(root, "workers/python");

// Lint rules only (Prettier's counterpart for Python, ruff format, is not applied: this Python is
// laid out by hand). Each selected rule is a likely bug when it fires:
//   F    pyflakes: undefined names, unused imports and variables, redefinitions, bad format strings
//   E9   syntax errors
//   PLE  pylint's errors (await outside async, bad string format, return in __init__, …)
//   B    bugbear: mutable default arguments, closures over loop variables, silenced exceptions
// B905 (zip() without strict=) is a choice, not a bug: adding strict= changes what unequal
// lengths do, so it is not asked for.
const settings = {
  "target-version": "py314", // Pyodide 314 runs CPython 3.14
  lint: { select: ["F", "E9", "PLE", "B"], ignore: ["B905"] },
};

function pythonFiles(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === "__pycache__" ? [] : pythonFiles(path);
      return entry.name.endsWith(".py") ? [path] : [];
    })
    .sort();
}

// The runtime is a package whose modules import what they use: each file is linted alone.
const workspace = new Workspace(settings, PositionEncoding.Utf16);

const findings = [];
for (const file of pythonFiles(pythonDir)) {
  const name = relative(root, file);
  for (const d of workspace.check(readFileSync(file, "utf8"))) {
    findings.push(`${name}:${d.start_location.row}:${d.start_location.column} ${d.code ?? "syntax"} ${d.message}`);
  }
}

if (findings.length) {
  console.error(findings.join("\n"));
  console.error(`ruff ${Workspace.version()}: ${findings.length} finding(s) in workers/python (rules in scripts/ruff-check.mjs).`);
  process.exit(1);
}
console.log(`ruff ${Workspace.version()}: workers/python is clean.`);
