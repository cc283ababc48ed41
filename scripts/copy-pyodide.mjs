// Copies the Pyodide runtime from node_modules into public/pyodide so the app serves it from
// its own origin: no CDN, works offline, and the REPL worker's CSP can stay 'self'.
import { copyFileSync, mkdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const files = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"];
const src = dirname(createRequire(import.meta.url).resolve("pyodide/package.json"));
const dest = fileURLToPath(new URL("../public/pyodide/", import.meta.url));
mkdirSync(dest, { recursive: true });
for (const f of files) {
  const from = join(src, f);
  const to = join(dest, f);
  let fresh = false;
  try {
    fresh = statSync(to).size === statSync(from).size && statSync(to).mtimeMs >= statSync(from).mtimeMs;
  } catch {
    fresh = false;
  }
  if (!fresh) copyFileSync(from, to);
}
