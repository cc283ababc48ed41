// Files in the CLI's cache directory are written whole or not at all: several `rlm` processes may
// start at once, and each writes its own temporary file and renames it into place, so a reader
// sees the old file, the new one or none, never half of one. And the directory stays bounded.
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";

/**
 * Writes `parts` one after another to `dir`/`name`. The temporary file is `.NAME.PID.RANDOM.tmp`
 * in the same directory (the stores remove ones a dead process left behind). Throws if it fails,
 * leaving no temporary file.
 */
export function writeFileAtomically(dir: string, name: string, parts: ReadonlyArray<Uint8Array | string>): void {
  mkdirSync(dir, { recursive: true });
  const temp = join(dir, `.${name}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  const fd = openSync(temp, "w", 0o644);
  try {
    for (const part of parts) writeSync(fd, typeof part === "string" ? Buffer.from(part) : part);
  } catch (err) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(temp, join(dir, name));
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}

/** A kind of cache file: `PREFIX<key>SUFFIX`, with files of its own beside each (`PREFIX<key><companion>`). */
export interface CacheFileKind {
  prefix: string;
  suffix: string;
  companionSuffixes?: readonly string[];
  /** Files of other keys kept, newest first: other installed versions of the tool keep theirs. */
  keepOthers: number;
}

/** A temporary file this old was left by a process that died mid-write. */
const STALE_TEMP_MS = 10 * 60 * 1000;

/** Keeps `keep`, the newest few of the kind's other files, no companions without their file, no dead temporary files. */
export function pruneCacheFiles(dir: string, kind: CacheFileKind, keep: string): void {
  const now = Date.now();
  const companions = kind.companionSuffixes ?? [];
  const entryOf = (name: string, companion: string) => `${name.slice(0, -companion.length)}${kind.suffix}`;
  const others: Array<{ name: string; mtime: number }> = [];
  for (const name of readdirSync(dir)) {
    try {
      const mtime = statSync(join(dir, name)).mtimeMs;
      const companion = companions.find((c) => name.startsWith(kind.prefix) && name.endsWith(c));
      if (name.startsWith(`.${kind.prefix}`) && name.endsWith(".tmp")) {
        if (now - mtime > STALE_TEMP_MS) rmSync(join(dir, name), { force: true });
      } else if (name.startsWith(kind.prefix) && name.endsWith(kind.suffix) && name !== keep) {
        others.push({ name, mtime });
      } else if (companion && !existsSync(join(dir, entryOf(name, companion)))) {
        rmSync(join(dir, name), { force: true }); // its file is gone
      }
    } catch {
      // Another process removed it first.
    }
  }
  others.sort((a, b) => b.mtime - a.mtime);
  for (const { name } of others.slice(kind.keepOthers)) {
    rmSync(join(dir, name), { force: true });
    for (const companion of companions) rmSync(join(dir, `${name.slice(0, -kind.suffix.length)}${companion}`), { force: true });
  }
}
