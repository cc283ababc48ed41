// A source tree as zip bytes and back, for the app's drop-a-zip path. fflate runs in browsers
// and Node alike.
import { strFromU8, strToU8, unzipSync, zipSync, type Zippable } from "fflate";
import type { SourceTree } from "./suites/code-analysis.ts";

/** A fixed timestamp keeps the bytes identical for identical trees (reproducible fixtures). */
const FIXED_MTIME = new Date("2024-01-01T00:00:00Z");

/** Zip bytes of `tree`, every path under `folder/` when given (as GitHub's "Download ZIP" does). */
export function sourceTreeToZip(tree: SourceTree, folder?: string): Uint8Array {
  const entries: Zippable = {};
  for (const path of Object.keys(tree).sort()) {
    entries[folder ? `${folder}/${path}` : path] = [strToU8(tree[path]!), { mtime: FIXED_MTIME }];
  }
  return zipSync(entries, { level: 6, mtime: FIXED_MTIME });
}

/**
 * The text files of a zip as a tree. Binary entries (a NUL byte in the first 8 KB) and folders
 * are skipped; a single top-level folder shared by every entry is removed.
 */
export function sourceTreeFromZip(bytes: Uint8Array): SourceTree {
  const files = unzipSync(bytes);
  const texts: Array<[string, string]> = [];
  for (const [path, data] of Object.entries(files)) {
    if (path.endsWith("/")) continue;
    if (data.subarray(0, 8192).includes(0)) continue;
    texts.push([path, strFromU8(data)]);
  }
  const firsts = new Set(texts.map(([p]) => (p.includes("/") ? p.slice(0, p.indexOf("/")) : "")));
  const strip = firsts.size === 1 && !firsts.has("") ? [...firsts][0]!.length + 1 : 0;
  const tree: SourceTree = {};
  for (const [p, text] of texts.sort(([a], [b]) => (a < b ? -1 : 1))) tree[p.slice(strip)] = text;
  return tree;
}
