// Snapshots as files in a directory (the CLI's cache directory). Several `rlm` processes may
// start at once and all find no snapshot: each writes its own temporary file and renames it into
// place, so a reader sees the old file, the new one or none, never half of one.
import { closeSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { readFile, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { SnapshotStore } from "./snapshot-store.ts";

const PREFIX = "python-snapshot-";
const SUFFIX = ".bin";
/** Entries of other keys kept, newest first: other installed versions of the tool keep theirs. */
const KEEP_OTHERS = 2;
/** A temporary file this old was left by a process that died mid-write. */
const STALE_TEMP_MS = 10 * 60 * 1000;

export const snapshotFileName = (key: string) => `${PREFIX}${key}${SUFFIX}`;

export function fileSnapshotStore(dir: string): SnapshotStore {
  const fileFor = (key: string) => join(dir, snapshotFileName(key));
  return {
    where: dir,
    waitForWrites: true,
    async find(key) {
      try {
        // One read, not stat-then-read: the file may be replaced in between.
        const buffer = await readFile(fileFor(key));
        return { bytes: Promise.resolve(new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)) };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw new Error(`cannot read ${fileFor(key)}: ${(err as Error).message}`);
      }
    },
    // Synchronous: the worker thread has nothing else to do meanwhile, and it is simpler to reason
    // about a file that is complete (or absent) when this returns.
    async write(key, header, payload) {
      mkdirSync(dir, { recursive: true });
      const temp = join(dir, `.${snapshotFileName(key)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
      const fd = openSync(temp, "w", 0o644);
      try {
        writeSync(fd, header);
        writeSync(fd, payload);
      } catch (err) {
        closeSync(fd);
        rmSync(temp, { force: true });
        throw err;
      }
      closeSync(fd);
      renameSync(temp, fileFor(key));
      prune(dir, snapshotFileName(key));
    },
    async remove(key) {
      await unlink(fileFor(key)).catch(() => undefined);
    },
  };
}

/** Keeps the directory bounded: this key's file, the newest few of other keys, no dead temp files. */
function prune(dir: string, keep: string): void {
  const now = Date.now();
  const others: Array<{ name: string; mtime: number }> = [];
  for (const name of readdirSync(dir)) {
    try {
      const mtime = statSync(join(dir, name)).mtimeMs;
      if (name.startsWith(`.${PREFIX}`) && name.endsWith(".tmp")) {
        if (now - mtime > STALE_TEMP_MS) rmSync(join(dir, name), { force: true });
      } else if (name.startsWith(PREFIX) && name.endsWith(SUFFIX) && name !== keep) {
        others.push({ name, mtime });
      }
    } catch {
      // Another process removed it first.
    }
  }
  others.sort((a, b) => b.mtime - a.mtime);
  for (const { name } of others.slice(KEEP_OTHERS)) rmSync(join(dir, name), { force: true });
}
