// Which document speaks for a set, and what to call the set: a repository's zip (or a dropped
// folder) arrives as hundreds of files in archive order, and the first of them (a LICENSE, a
// .github workflow) named the session and the suggested questions. Its README says what it is,
// and its entry point is where reading the code starts.
import type { DocumentMeta } from "../store/index.ts";

const README = /^readme(?:\.(?:md|markdown|rst|txt|adoc|org))?$/i;
/** Where a program starts, best first, by file name. */
const ENTRY_POINTS = [
  "__main__.py",
  "main.py",
  "app.py",
  "cli.py",
  "main.go",
  "main.rs",
  "lib.rs",
  "main.ts",
  "index.ts",
  "main.js",
  "index.js",
  "app.ts",
  "app.js",
  "main.c",
  "main.cpp",
  "Main.java",
  "main.swift",
  "main.kt",
  "index.php",
  "main.rb",
];

const depth = (path: string) => path.split("/").length;

/** The shallowest of the documents that pass `test`, the earliest among equals. */
function shallowest(docs: readonly DocumentMeta[], test: (doc: DocumentMeta) => boolean): DocumentMeta | undefined {
  let best: DocumentMeta | undefined;
  for (const d of docs) if (test(d) && (!best || depth(d.path) < depth(best.path))) best = d;
  return best;
}

/** The README nearest the top of the set, if it has one. */
export function readmeOf(docs: readonly DocumentMeta[]): DocumentMeta | undefined {
  return shallowest(docs, (d) => README.test(d.name));
}

/** The program's entry point nearest the top (by the names programs start from), if any. */
export function entryPointOf(docs: readonly DocumentMeta[]): DocumentMeta | undefined {
  for (const name of ENTRY_POINTS) {
    const found = shallowest(docs, (d) => d.name === name);
    if (found) return found;
  }
  return undefined;
}

/** The document that speaks for the set: its README, else its entry point, else the first file nearest the top. */
export function leadDocument(docs: readonly DocumentMeta[]): DocumentMeta | undefined {
  return readmeOf(docs) ?? entryPointOf(docs) ?? shallowest(docs, () => true);
}

/**
 * The folder or archive every document of a set sits in ("repo.zip", "project"), or null for
 * loose files. A zip's entries are "repo.zip/…", a dropped folder's files "project/…".
 */
export function collectionOf(docs: readonly DocumentMeta[]): string | null {
  if (docs.length < 2) return null;
  const top = (p: string) => (p.includes("/") ? p.slice(0, p.indexOf("/")) : null);
  const first = top(docs[0]!.path);
  return first && docs.every((d) => top(d.path) === first) ? first : null;
}

/**
 * The folder every document sits in, deepest, with its slash ("repo.zip/repo-main/"), or "": a
 * GitHub zip holds one folder, and a path is easier to read without it.
 */
export function commonFolderOf(docs: readonly DocumentMeta[]): string {
  if (!docs.length) return "";
  let prefix = docs[0]!.path.slice(0, docs[0]!.path.lastIndexOf("/") + 1);
  for (const d of docs) {
    // Up one folder at a time until this path is inside it.
    while (prefix && !d.path.startsWith(prefix)) prefix = prefix.slice(0, prefix.lastIndexOf("/", prefix.length - 2) + 1);
  }
  return prefix;
}

/** A README's title: its first line when that is a Markdown heading, without badges or links. */
function readmeTitle(readme: DocumentMeta): string | null {
  const line =
    readme.preview
      .split("\n")
      .find((l) => l.trim())
      ?.trim() ?? "";
  const heading = /^#\s+(.+)$/.exec(line)?.[1];
  if (!heading) return null;
  const text = heading
    .replace(/!\[[^\]]*\]\([^)]*\)/g, "") // badges (images) first, then the links around them
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]*>/g, "")
    .replace(/[*_`]+/g, "")
    .trim();
  return text && text.length <= 60 ? text : null;
}

/**
 * What to call a session for the documents it was given: a repository by its README's title or
 * its archive's (folder's) name, a single document by its name.
 */
export function titleFor(docs: readonly DocumentMeta[]): string {
  const collection = collectionOf(docs);
  const readme = readmeOf(docs);
  if (collection) return (readme && readmeTitle(readme)) ?? collection.replace(/\.zip$/i, "");
  return docs[0]?.name ?? "Untitled";
}
