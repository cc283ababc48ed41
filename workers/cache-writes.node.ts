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

export type CacheWrite =
  /** A new snapshot: its envelope header, then Pyodide's bytes. */
  | { op: "snapshot"; key: string; header: Uint8Array; payload: Uint8Array }
  /** The stamp of a snapshot that passed its full check (see snapshot-store-node.ts). */
  | { op: "snapshot-stamp"; key: string; stamp: string }
  /** Forget a snapshot that was rejected or would not restore. */
  | { op: "snapshot-remove"; key: string }
  /** V8's code cache for pyodide.asm.mjs, under the name pyodide-code-cache.node.ts chose. */
  | { op: "code-cache"; name: string; payload: Uint8Array };

/** Carries out one write; rejects with the reason when it cannot. */
export type CacheWriter = (write: CacheWrite) => Promise<void>;

export const SNAPSHOT_FILES: CacheFileKind = { prefix: "python-snapshot-", suffix: ".bin", companionSuffixes: [".stamp"], keepOthers: 2 };
export const CODE_CACHE_FILES: CacheFileKind = { prefix: "pyodide-js-", suffix: ".bin", keepOthers: 2 };

export const snapshotFileName = (key: string) => `${SNAPSHOT_FILES.prefix}${key}${SNAPSHOT_FILES.suffix}`;
export const snapshotStampName = (key: string) => `${SNAPSHOT_FILES.prefix}${key}.stamp`;

/** The code cache's file: magic, then a CRC-32 of the payload, then V8's bytes. */
export const CODE_CACHE_MAGIC = 0x524a5331; // "RJS1"
export const CODE_CACHE_HEADER_BYTES = 8;

const KEY = /^[0-9A-Za-z._-]{1,200}$/;
const CODE_CACHE_NAME = new RegExp(`^${CODE_CACHE_FILES.prefix}[0-9a-f]{16}\\${CODE_CACHE_FILES.suffix}$`);
/** Far above a real snapshot (≤ 30 MiB) or code cache (~1.2 MB): anything bigger is not ours. */
const MAX_BYTES = 64 * 1024 * 1024;

const isBytes = (v: unknown): v is Uint8Array => v instanceof Uint8Array && v.byteLength <= MAX_BYTES;

/** Whether a message from the sandbox process is a write this module would carry out. */
export function isCacheWrite(v: unknown): v is CacheWrite {
  if (typeof v !== "object" || v === null) return false;
  const w = v as Record<string, unknown>;
  const key = typeof w.key === "string" && KEY.test(w.key);
  switch (w.op) {
    case "snapshot":
      return key && isBytes(w.header) && isBytes(w.payload);
    case "snapshot-stamp":
      return key && typeof w.stamp === "string" && w.stamp.length < 1024;
    case "snapshot-remove":
      return key;
    case "code-cache":
      return typeof w.name === "string" && CODE_CACHE_NAME.test(w.name) && isBytes(w.payload);
    default:
      return false;
  }
}

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

/** A reply on the write port: the request's id, and why it failed if it did. */
export interface CacheWriteReply {
  id: number;
  error?: string;
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
      port.postMessage({ id, write });
    });
}
