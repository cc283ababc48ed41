// What a stored Python memory snapshot is keyed by, and the envelope it is stored in. Pure code:
// the browser worker, the Node worker and the tests share it.
//
// Pyodide's own snapshot header only carries a BUILD_ID, so on its own it cannot tell that the
// runtime package (workers/python/rlm_runtime/) changed (the old runtime would come back
// silently), that a file was cut short by a full disk (the heap would be restored half-empty and
// crash later, not at restore), or that a file is not a snapshot at all. The envelope answers all three before Pyodide sees a byte.
import type { RuntimeFile } from "./runtime-package.ts";
import { SnapshotRejected } from "../../src/repl/snapshot-store.ts";

/**
 * Bump when anything besides the Pyodide version and the runtime's files changes what the heap
 * holds at snapshot time (the modules registered before the runtime runs, load options, how the
 * runtime is installed). 2: Node gives Pyodide a `jsglobals` of its own (lockdown.node.ts);
 * 3: the runtime is a package, imported once (snapshot-boot.ts).
 */
const SNAPSHOT_RECIPE = 3;

/**
 * Pyodide's INITIAL_MEMORY. A snapshot of a heap that grew past it cannot be restored
 * (pyodide#6254: the restore fails with `RangeError: offset is out of bounds`), which is why the
 * snapshot is taken right after boot, before any document is loaded.
 */
export const PYODIDE_INITIAL_HEAP_BYTES = 30 * 1024 * 1024;

/** Room pyodide's own header (magic, offsets, BUILD_ID, a small JSON table) may take. */
export const PYODIDE_SNAPSHOT_HEADER_MAX_BYTES = 64 * 1024;

const MAGIC = "RLMSNAP1";
const FIXED_HEADER_BYTES = 24;
const MAX_HEADER_BYTES = 4096;

/** 64-bit FNV-1a over UTF-8, as 16 hex digits. A cache key, not a security check. */
export function fingerprint(text: string): string {
  // In two 32-bit halves: BigInt arithmetic took ~10 ms per start for the runtime's 60 KB.
  // prime = 2^40 + 0x1b3, so hash * prime = hash * 0x1b3 + (hash << 40), modulo 2^64.
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  for (const byte of new TextEncoder().encode(text)) {
    lo = (lo ^ byte) >>> 0;
    const low = lo * 0x1b3; // < 2^41: exact in a double
    hi = (Math.imul(hi, 0x1b3) + Math.floor(low / 0x100000000) + (lo << 8)) >>> 0;
    lo = low >>> 0;
  }
  return hi.toString(16).padStart(8, "0") + lo.toString(16).padStart(8, "0");
}

/**
 * Every file of the runtime package goes into the heap a snapshot keeps, so the key covers all of
 * them, each with its path (a renamed module changes the key too), in the package's fixed order.
 */
export function runtimeText(files: readonly RuntimeFile[]): string {
  return files.map((f) => `# ${f.path}\n${f.source}`).join("\n");
}

/** The key a snapshot is stored and checked under: changes whenever the heap it holds would. */
export function snapshotKey(pyodideVersion: string, runtimeSource: string): string {
  const safeVersion = pyodideVersion.replace(/[^0-9A-Za-z.]/g, "_");
  return `pyodide-${safeVersion}-runtime-${fingerprint(runtimeSource)}-r${SNAPSHOT_RECIPE}`;
}

/**
 * FNV-1a over 32-bit words (plus the tail bytes): about 15 ms for a 30 MiB heap, enough to notice
 * a torn or bit-flipped file. Corruption is the threat here, not forgery.
 */
export function checksum(bytes: Uint8Array): number {
  let hash = 0x811c9dc5;
  const words = Math.floor(bytes.byteLength / 4);
  const aligned = bytes.byteOffset % 4 === 0;
  const view = aligned ? new Uint32Array(bytes.buffer, bytes.byteOffset, words) : null;
  const data = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < words; i++) {
    hash = Math.imul(hash ^ (view ? view[i]! : data.getUint32(i * 4, true)), 0x01000193);
  }
  for (let i = words * 4; i < bytes.byteLength; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  return hash >>> 0;
}

/**
 * The header that goes before pyodide's snapshot bytes (little-endian):
 * magic "RLMSNAP1" · u32 header length · u32 payload length · u32 payload checksum ·
 * u32 key length · key (UTF-8), zero-padded so the payload starts on a 16-byte boundary
 * (pyodide reads its header through a Uint32Array view).
 */
export function envelopeHeader(key: string, payload: Uint8Array): Uint8Array {
  const keyBytes = new TextEncoder().encode(key);
  const length = Math.ceil((FIXED_HEADER_BYTES + keyBytes.length) / 16) * 16;
  if (length > MAX_HEADER_BYTES) throw new Error("snapshot key too long");
  const header = new Uint8Array(length);
  header.set(new TextEncoder().encode(MAGIC), 0);
  const view = new DataView(header.buffer);
  view.setUint32(8, length, true);
  view.setUint32(12, payload.byteLength, true);
  view.setUint32(16, checksum(payload), true);
  view.setUint32(20, keyBytes.length, true);
  header.set(keyBytes, FIXED_HEADER_BYTES);
  return header;
}

/** The envelope's header of stored bytes (as far as it can be told), for a store's stamp. */
export function envelopeHeaderOf(stored: Uint8Array): Uint8Array | null {
  if (stored.byteLength < FIXED_HEADER_BYTES) return null;
  const length = new DataView(stored.buffer, stored.byteOffset, stored.byteLength).getUint32(8, true);
  return length <= MAX_HEADER_BYTES && length <= stored.byteLength ? stored.subarray(0, length) : null;
}

/**
 * The pyodide snapshot inside stored bytes, as a view (no copy), after checking that they are
 * ours, made for `key`, complete and intact. Throws SnapshotRejected otherwise. `skipChecksum`:
 * the store vouches that the bytes passed the checksum before and have not changed since (the
 * header, key and length are still checked; they cost nothing).
 */
export function openEnvelope(key: string, stored: Uint8Array, options: { skipChecksum?: boolean } = {}): Uint8Array {
  if (stored.byteLength < FIXED_HEADER_BYTES)
    throw new SnapshotRejected(`the file is too short to be a snapshot (${stored.byteLength} bytes)`);
  if (new TextDecoder().decode(stored.subarray(0, 8)) !== MAGIC) throw new SnapshotRejected("the file is not a Recursive Reader snapshot");
  const view = new DataView(stored.buffer, stored.byteOffset, stored.byteLength);
  const headerLength = view.getUint32(8, true);
  const payloadLength = view.getUint32(12, true);
  const expectedChecksum = view.getUint32(16, true);
  const keyLength = view.getUint32(20, true);
  if (
    headerLength % 16 !== 0 ||
    headerLength > MAX_HEADER_BYTES ||
    FIXED_HEADER_BYTES + keyLength > headerLength ||
    headerLength > stored.byteLength
  ) {
    throw new SnapshotRejected("the snapshot header is damaged");
  }
  const storedKey = new TextDecoder().decode(stored.subarray(FIXED_HEADER_BYTES, FIXED_HEADER_BYTES + keyLength));
  if (storedKey !== key) throw new SnapshotRejected(`it was made for another version (${storedKey}, need ${key})`);
  if (stored.byteLength - headerLength !== payloadLength) {
    throw new SnapshotRejected(`it is truncated or padded (${stored.byteLength - headerLength} of ${payloadLength} bytes)`);
  }
  if (stored.byteOffset % 4 !== 0) throw new SnapshotRejected("the snapshot bytes are misaligned");
  const payload = stored.subarray(headerLength);
  if (!options.skipChecksum && checksum(payload) !== expectedChecksum)
    throw new SnapshotRejected("its checksum does not match (the file is corrupt)");
  return payload;
}
