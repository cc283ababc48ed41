// The build's copy step for files the app serves from its own origin (Pyodide, llama.cpp's
// WebAssembly): a file is copied only when the copy is missing, of another size or older than its
// source, so a rebuild does not rewrite hundreds of megabytes.
import { copyFileSync, mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";

/** Copies each [from, to] pair whose copy is missing or stale; makes the folders it needs. */
export function copyWhenStale(pairs) {
  for (const [from, to] of pairs) {
    mkdirSync(dirname(to), { recursive: true });
    if (!isFresh(from, to)) copyFileSync(from, to);
  }
}

function isFresh(from, to) {
  try {
    const source = statSync(from);
    const copy = statSync(to);
    return copy.size === source.size && copy.mtimeMs >= source.mtimeMs;
  } catch {
    return false;
  }
}
