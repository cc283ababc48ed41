// Where snapshots live. The boot code (workers/shared/snapshot-boot.ts) only sees this interface; each runtime
// injects its own: Cache Storage in the browser worker (below), a file in Node
// (workers/node/snapshot-store.node.ts, kept apart so the browser bundle never imports node:fs).

/** A stored snapshot that must not be restored; the message says why, for --verbose and logs. */
export class SnapshotRejected extends Error {
  override name = "SnapshotRejected";
}

export interface SnapshotStore {
  /** For messages: "Cache Storage 'rlm-python-snapshot'", "/home/me/.cache/recursive-reader". */
  readonly where: string;
  /**
   * Whether boot waits for write() before Python is ready. Node: yes (it is quick, and a CLI that
   * exits at once must not leave the file unwritten). Browser: no (a 30 MiB put takes 0.5–1 s).
   */
  readonly waitForWrites: boolean;
  /**
   * The stored bytes for `key`, or null when there are none. Resolves as soon as it is known
   * whether an entry exists; the bytes themselves may still be on their way (the restore starts
   * importing Pyodide meanwhile).
   */
  find(key: string): Promise<StoredSnapshot | null>;
  /**
   * Store header + payload under `key`, replacing any entry, and drop entries of other keys.
   * It must be safe to call before the worker locks itself down and let it finish after. It must
   * copy what it needs before it returns: the caller frees the payload right after.
   */
  write(key: string, header: Uint8Array, payload: Uint8Array): Promise<void>;
  /** Forget `key` (a rejected or unrestorable entry). Never throws. */
  remove(key: string): Promise<void>;
}

export interface StoredSnapshot {
  bytes: Promise<Uint8Array>;
  /**
   * The store vouches that these very bytes passed the full check before and have not changed
   * since (Node: a stamp beside the file matches its size, inode, times and header), so the
   * payload checksum may be skipped. The envelope's header is still checked.
   */
  checkedBefore?: boolean | Promise<boolean>;
  /** Remember that these bytes passed the full check (after a restore from them succeeded). */
  markChecked?: () => Promise<void>;
}

export const DEFAULT_SNAPSHOT_CACHE = "rlm-python-snapshot";

/** Cache Storage keys must be http(s) URLs; this host never resolves, nothing is fetched. */
const entryUrl = (key: string) => `https://python-snapshot.recursive-reader.invalid/${encodeURIComponent(key)}`;

/**
 * Cache Storage, opened once: the `Cache` object keeps working after lockDown() removes the
 * `caches` global, so a write started before lockDown finishes after it, and model code never
 * gets a way to reach it.
 */
export interface BlobSnapshotStore extends SnapshotStore {
  /** The stored bytes as a Blob, not read: the page hands them on to a worker, which reads them itself. */
  findBlob(key: string): Promise<Blob | null>;
  writeBlob(key: string, body: Blob): Promise<void>;
}

export function cacheStorageSnapshotStore(cacheName: string = DEFAULT_SNAPSHOT_CACHE): BlobSnapshotStore {
  let opened: Promise<Cache> | null = null;
  const open = (): Promise<Cache> => {
    if (opened) return opened;
    const storage = (globalThis as { caches?: CacheStorage }).caches;
    if (!storage) return Promise.reject(new Error("Cache Storage is not available here (the page is not a secure context)"));
    opened = storage.open(cacheName);
    return opened;
  };
  return {
    where: `Cache Storage '${cacheName}'`,
    waitForWrites: false,
    async find(key) {
      const response = await (await open()).match(entryUrl(key));
      if (!response) return null;
      return { bytes: readBody(response) };
    },
    async findBlob(key) {
      const response = await (await open()).match(entryUrl(key));
      return response ? response.blob() : null;
    },
    write(key, header, payload) {
      const body = new Blob([header as BlobPart, payload as BlobPart]); // copies, now
      return putAndPrune(open(), key, body);
    },
    writeBlob: (key, body) => putAndPrune(open(), key, body),
    async remove(key) {
      try {
        await (await open()).delete(entryUrl(key));
      } catch {
        // Nothing to clean up if the cache cannot even be opened.
      }
    },
  };
}

const LENGTH_HEADER = "x-snapshot-bytes";

/**
 * The body, streamed into one buffer of the length stored with it. Not response.arrayBuffer():
 * Chromium then keeps its own 30 MB copy of the body alive until the worker next collects
 * garbage, which an idle sandbox may not do for a long time (measured: +30 MB per sandbox).
 */
async function readBody(response: Response): Promise<Uint8Array> {
  const length = Number(response.headers.get(LENGTH_HEADER));
  if (!response.body || !Number.isSafeInteger(length) || length <= 0) return new Uint8Array(await response.arrayBuffer());
  return readStream(response.body, length);
}

/** A Blob's bytes, streamed into one buffer of its size (the same reason as readBody). */
export function readBlob(blob: Blob): Promise<Uint8Array> {
  return readStream(blob.stream(), blob.size);
}

async function readStream(stream: ReadableStream<Uint8Array>, length: number): Promise<Uint8Array> {
  const out = new Uint8Array(length);
  const reader = stream.getReader();
  let at = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (at + value.byteLength > length) {
      await reader.cancel();
      throw new SnapshotRejected(`it is longer than the ${length} bytes stored with it`);
    }
    out.set(value, at);
    at += value.byteLength;
  }
  return at === length ? out : out.subarray(0, at); // short: the envelope check says "truncated"
}

async function putAndPrune(opening: Promise<Cache>, key: string, body: Blob): Promise<void> {
  const cache = await opening;
  const headers = { "Content-Type": "application/octet-stream", [LENGTH_HEADER]: String(body.size) };
  await cache.put(entryUrl(key), new Response(body, { headers }));
  for (const request of await cache.keys()) {
    if (request.url !== entryUrl(key)) await cache.delete(request);
  }
}
