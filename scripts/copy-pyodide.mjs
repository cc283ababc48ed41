// Copies the Pyodide runtime from node_modules into public/pyodide so the app serves it from
// its own origin: no CDN, works offline, and the REPL worker's CSP can stay 'self'.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { copyWhenStale } from "./copy-when-stale.mjs";

const files = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"];
const src = dirname(createRequire(import.meta.url).resolve("pyodide/package.json"));
const dest = fileURLToPath(new URL("../public/pyodide/", import.meta.url));
copyWhenStale(files.map((f) => [join(src, f), join(dest, f)]));
