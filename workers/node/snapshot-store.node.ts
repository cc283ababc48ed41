// Snapshots as files in a directory (the CLI's cache directory). Several `rlm` processes may
// start at once and all find no snapshot: each writes its own temporary file and renames it into
// place, so a reader sees the old file, the new one or none, never half of one.
//
// Checking a 30 MiB snapshot's checksum costs ~45 ms of CPU on every start. Once a file has passed
// the full check and restored, a stamp is written beside it (python-snapshot-KEY.stamp, also by
// rename): its size, inode, modification and change times (nanoseconds) and a checksum of its
// envelope header. A later start that finds all of them unchanged skips the payload checksum; any
// difference (the file touched, rewritten in place, replaced, or a stamp that cannot be read)
// means the full check again. The stamp guards against accidents (a torn write, a disk error
// that changes the file), the same as the checksum does; neither is a defence against forgery.
//
// Reading is done here; every write goes through a CacheWriter (cache-writes.node.ts), which in
// the CLI's sandbox is the parent process.
import { closeSync, fstatSync, openSync, readFileSync, type BigIntStats } from "node:fs";
import { join } from "node:path";
import { readWhole } from "../../src/node/read-whole.mjs";
import { localCacheWriter, snapshotFileName, snapshotStampName, type CacheWriter } from "../../src/repl/cache-writes.node.ts";
import { checksum, envelopeHeaderOf } from "../shared/snapshot-format.ts";
import type { SnapshotStore, StoredSnapshot } from "../../src/repl/snapshot-store.ts";

export { snapshotFileName, snapshotStampName };

/**
 * The file opened, with its stats, or null when there is none. One open, then stat and read
 * through it: the file may be replaced in between, and the stamp must describe the very bytes
 * that were read. Opened and looked at synchronously (microseconds) so that the read is on its way
 * when find() returns: the thread goes on to compile Pyodide's JavaScript meanwhile, and an
 * asynchronous step would wait for that.
 */
function openWithStats(path: string): { fd: number; before: BigIntStats } | null {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new Error(`cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    return { fd, before: fstatSync(fd, { bigint: true }) };
  } catch (err) {
    closeSync(fd);
    throw new Error(`cannot read ${path}: ${(err as Error).message}`);
  }
}

/** What a stamp holds: the file as it was when it passed the full check. */
interface Stamp {
  size: string;
  ino: string;
  mtimeNs: string;
  ctimeNs: string;
  header: number;
}

function stampOf(stats: BigIntStats, stored: Uint8Array): Stamp | null {
  const header = envelopeHeaderOf(stored);
  if (!header) return null;
  return {
    size: String(stats.size),
    ino: String(stats.ino),
    mtimeNs: String(stats.mtimeNs),
    ctimeNs: String(stats.ctimeNs),
    header: checksum(header),
  };
}

const sameStamp = (a: Stamp, b: Stamp) =>
  a.size === b.size && a.ino === b.ino && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs && a.header === b.header;

function readStamp(path: string): Stamp | null {
  try {
    const v = JSON.parse(readFileSync(path, "utf8")) as Partial<Stamp>;
    const text = (x: unknown) => typeof x === "string";
    return text(v.size) && text(v.ino) && text(v.mtimeNs) && text(v.ctimeNs) && typeof v.header === "number" ? (v as Stamp) : null;
  } catch {
    return null; // none yet, or unreadable: check in full
  }
}

export function fileSnapshotStore(dir: string, writer: CacheWriter = localCacheWriter(dir)): SnapshotStore {
  const fileFor = (key: string) => join(dir, snapshotFileName(key));
  const stampFor = (key: string) => join(dir, snapshotStampName(key));
  return {
    where: dir,
    waitForWrites: true,
    async find(key): Promise<StoredSnapshot | null> {
      const opened = openWithStats(fileFor(key));
      if (!opened) return null;
      const { fd, before } = opened;
      const reading = (async () => {
        try {
          const bytes = await readWhole(fd, Number(before.size));
          const after = fstatSync(fd, { bigint: true });
          const now =
            before.mtimeNs === after.mtimeNs && before.ctimeNs === after.ctimeNs && before.size === after.size
              ? stampOf(after, bytes)
              : null;
          return { bytes, now, stamp: readStamp(stampFor(key)) };
        } catch (err) {
          throw new Error(`cannot read ${fileFor(key)}: ${(err as Error).message}`);
        } finally {
          closeSync(fd);
        }
      })();
      reading.catch(() => undefined); // the caller sees the failure through `bytes`
      return {
        bytes: reading.then((r) => r.bytes),
        checkedBefore: reading.then(
          ({ now, stamp }) => !!now && !!stamp && sameStamp(now, stamp),
          () => false,
        ),
        markChecked: async () => {
          const { now, stamp } = await reading;
          if (!now || (stamp && sameStamp(now, stamp))) return;
          // A stamp that cannot be written only means a full check next time.
          await writer({ op: "snapshot-stamp", key, stamp: JSON.stringify(now) }).catch(() => undefined);
        },
      };
    },
    // The file is complete (or absent) when this resolves: the boot waits for it.
    write: (key, header, payload) => writer({ op: "snapshot", key, header, payload }),
    async remove(key) {
      await writer({ op: "snapshot-remove", key }).catch(() => undefined);
    },
  };
}
