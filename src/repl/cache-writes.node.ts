// Everything the Node REPL writes to the CLI's cache directory (the Python snapshot, its stamp,
// Pyodide's compiled JavaScript), as requests. Where Python runs in the CLI's sandbox process,
// that process may read the directory but never write it: the requests travel to the parent,
// which carries them out here, and only while Python is starting (before any model code has
// run), so model code can never plant a snapshot or a code cache that a later run would trust.
// Without the sandbox (tests of the REPL itself) the worker carries them out directly.
import { unlinkSync } from "node:fs";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { pruneCacheFiles, writeFileAtomically, type CacheFileKind } from "./atomic-file.node.ts";
import {
  CODE_CACHE_PREFIX,
  CODE_CACHE_SUFFIX,
  isCacheWrite,
  type CacheWrite,
  type CacheWriteReply,
  type CacheWriteRequest,
} from "./messages.ts";

/** Carries out one write; rejects with the reason when it cannot. */
export type CacheWriter = (write: CacheWrite) => Promise<void>;

const SNAPSHOT_FILES: CacheFileKind = { prefix: "python-snapshot-", suffix: ".bin", companionSuffixes: [".stamp"], keepOthers: 2 };
export const CODE_CACHE_FILES: CacheFileKind = { prefix: CODE_CACHE_PREFIX, suffix: CODE_CACHE_SUFFIX, keepOthers: 2 };

export const snapshotFileName = (key: string) => `${SNAPSHOT_FILES.prefix}${key}${SNAPSHOT_FILES.suffix}`;
export const snapshotStampName = (key: string) => `${SNAPSHOT_FILES.prefix}${key}.stamp`;

/** The code cache's file: magic, then a CRC-32 of the payload, then V8's bytes. */
export const CODE_CACHE_MAGIC = 0x524a5331; // "RJS1"
export const CODE_CACHE_HEADER_BYTES = 8;

/** Writes into `dir` itself: each file whole or not at all, the directory kept bounded. */
export function localCacheWriter(dir: string): CacheWriter {
  return async (write) => {
    if (!isCacheWrite(write)) throw new Error("not a cache write this REPL makes");
    switch (write.op) {
      case "snapshot":
        writeFileAtomically(dir, snapshotFileName(write.key), [write.header, write.payload]);
        pruneCacheFiles(dir, SNAPSHOT_FILES, snapshotFileName(write.key));
        return;
      case "snapshot-stamp":
        writeFileAtomically(dir, snapshotStampName(write.key), [write.stamp]);
        return;
      case "snapshot-remove":
        for (const name of [snapshotStampName(write.key), snapshotFileName(write.key)]) {
          try {
            unlinkSync(join(dir, name));
          } catch {
            // already gone
          }
        }
        return;
      case "code-cache": {
        const header = Buffer.alloc(CODE_CACHE_HEADER_BYTES);
        header.writeUInt32LE(CODE_CACHE_MAGIC, 0);
        header.writeUInt32LE(crc32(write.payload), 4);
        writeFileAtomically(dir, write.name, [header, write.payload]);
        pruneCacheFiles(dir, CODE_CACHE_FILES, write.name);
        return;
      }
    }
  };
}

/**
 * Writes sent over a port to whoever may write (the sandbox's relay, which hands them to the
 * parent process), each answered on the same port.
 */
export function portCacheWriter(port: MessagePort): CacheWriter {
  let nextId = 0;
  const waiting = new Map<number, (reply: CacheWriteReply) => void>();
  port.onmessage = (event: MessageEvent) => {
    const reply = event.data as CacheWriteReply;
    waiting.get(reply?.id)?.(reply);
    waiting.delete(reply?.id);
  };
  return (write) =>
    new Promise<void>((resolve, reject) => {
      const id = ++nextId;
      waiting.set(id, (reply) => (reply.error === undefined ? resolve() : reject(new Error(reply.error))));
      port.postMessage({ id, write } satisfies CacheWriteRequest);
    });
}
