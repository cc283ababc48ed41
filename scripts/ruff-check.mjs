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

// Scripts that Python runs one after another in a single namespace (workers/repl-runtime.ts:
// `evidence` runs after the runtime), keyed by the later one. Linted alone, the later script's
// use of the earlier one's names would look undefined; so its undefined names are checked with
// the earlier script in front of it, as Python runs them.
const runsAfter = { "rlm_evidence.py": "rlm_runtime.py" };

function pythonFiles(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === "__pycache__" ? [] : pythonFiles(path);
      return entry.name.endsWith(".py") ? [path] : [];
    })
    .sort();
}

const alone = new Workspace(settings, PositionEncoding.Utf16);
const sharedNames = new Workspace({ ...settings, lint: { select: ["F821"] } }, PositionEncoding.Utf16);
const aloneButSharedNames = new Workspace(
  { ...settings, lint: { ...settings.lint, ignore: [...settings.lint.ignore, "F821"] } },
  PositionEncoding.Utf16,
);

const findings = [];
for (const file of pythonFiles(pythonDir)) {
  const name = relative(root, file);
  const source = readFileSync(file, "utf8");
  const earlier = runsAfter[relative(pythonDir, file)];
  const report = (diagnostics, lineOffset = 0) => {
    for (const d of diagnostics) {
      const line = d.start_location.row - lineOffset;
      if (line < 1) continue; // a finding in the earlier script: reported when that one is linted
      findings.push(`${name}:${line}:${d.start_location.column} ${d.code ?? "syntax"} ${d.message}`);
    }
  };
  if (!earlier) {
    report(alone.check(source));
    continue;
  }
  report(aloneButSharedNames.check(source));
  const prefix = readFileSync(join(pythonDir, earlier), "utf8").replace(/\n?$/, "\n");
  report(sharedNames.check(prefix + source), prefix.split("\n").length - 1);
}

if (findings.length) {
  console.error(findings.join("\n"));
  console.error(`ruff ${Workspace.version()}: ${findings.length} finding(s) in workers/python (rules in scripts/ruff-check.mjs).`);
  process.exit(1);
}
console.log(`ruff ${Workspace.version()}: workers/python is clean.`);
