// Document paths: the keys of a dict-shaped `context`, so they must be clean, predictable and
// unique. Zip entry names come from untrusted archives (`../../etc/passwd`, `C:\x`), and two
// dropped files may share a name.
import type { IngestInput } from "./types.ts";

/** `/`-separated, no empty, `.` or `..` segments, no drive letter. Never empty. */
export function normalizePath(raw: string): string {
  const segments: string[] = [];
  for (const part of raw.replace(/\\/g, "/").split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      segments.pop();
      continue;
    }
    if (segments.length === 0 && /^[A-Za-z]:$/.test(part)) continue;
    segments.push(part);
  }
  return segments.length ? segments.join("/") : "document";
}

export function baseName(path: string): string {
  const i = path.lastIndexOf("/");
  return i >= 0 ? path.slice(i + 1) : path;
}

/** Lower-case extension without the dot; "" for none (and for dotfiles such as `.bashrc`). */
export function extensionOf(path: string): string {
  const name = baseName(path);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
}

/** The path an input is known by: the explicit one, else the folder-relative one, else its name. */
export function inputPath(input: IngestInput): string {
  const file = input.file as Partial<File>;
  const raw = input.path || file.webkitRelativePath || file.name || "document";
  return normalizePath(raw);
}

const METADATA_DIRS = new Set(["__MACOSX", ".git", ".svn", ".hg"]);
const METADATA_FILES = new Set([".DS_Store", "Thumbs.db", "desktop.ini"]);

/** Why a path is tool metadata rather than content, or null. */
export function metadataReason(path: string): string | null {
  const segments = path.split("/");
  const name = segments[segments.length - 1] ?? "";
  for (const dir of segments.slice(0, -1)) {
    if (METADATA_DIRS.has(dir)) return `it is inside ${dir}/, which holds tool metadata, not content`;
  }
  if (METADATA_FILES.has(name)) return "it is operating-system metadata, not content";
  return null;
}

/**
 * Hands out each path once; a repeat becomes `name (2).ext`, `name (3).ext`, … A dotfile has no
 * extension (`repo/.gitignore (2)`), as `extensionOf` says. The one rule for every document path,
 * within a drop and against the documents a session already has.
 */
export class UniquePaths {
  private readonly taken: Set<string>;

  constructor(taken: Iterable<string> = []) {
    this.taken = new Set(taken);
  }

  claim(path: string): string {
    if (!this.taken.has(path)) {
      this.taken.add(path);
      return path;
    }
    const slash = path.lastIndexOf("/");
    const dot = path.lastIndexOf(".");
    const cut = dot > slash + 1 ? dot : path.length;
    for (let n = 2; ; n++) {
      const candidate = `${path.slice(0, cut)} (${n})${path.slice(cut)}`;
      if (!this.taken.has(candidate)) {
        this.taken.add(candidate);
        return candidate;
      }
    }
  }
}
