// Sessions, their documents and every exchange, in IndexedDB: a reload, a crash or a closed
// tab loses nothing. idb gives typed promises over IndexedDB's event API. The stores and what
// each row holds are schema.ts and migrations.ts's; a database saved by an older page is migrated
// when it is opened.
import { openDB, type IDBPDatabase, type IDBPObjectStore } from "idb";
import { MIGRATIONS, migrate, type DocumentRow, type RlmDb } from "./migrations.ts";
import { exchangeFromRecord, splitExchange, type RunSteps, type StoredExchange } from "./schema.ts";
import type { SessionRecord, SessionStorage, StoredDocument } from "./types.ts";

export type { SessionRecord, SessionStorage, StoredDocument };

export class StorageFullError extends Error {
  override name = "StorageFullError";
  constructor() {
    super(
      "The browser's storage for this page is full, so the latest change was not saved. " +
        "Delete old sessions from the Sessions list, or free disk space, then try again.",
    );
  }
}

export class StorageUnavailableError extends Error {
  override name = "StorageUnavailableError";
  constructor(detail: string) {
    super(
      `Sessions cannot be saved in this browser (${detail}). Work is kept only until the tab is closed; private windows often block storage.`,
    );
  }
}

function mapError(err: unknown): Error {
  const name = (err as { name?: string } | null)?.name;
  if (name === "QuotaExceededError") return new StorageFullError();
  return err instanceof Error ? err : new Error(String(err));
}

const DB_NAME = "browser-rlm";

export class SessionStore implements SessionStorage {
  private blobProbe: Promise<boolean> | null = null;

  private constructor(private readonly db: IDBPDatabase<RlmDb>) {}

  static async open(name = DB_NAME): Promise<SessionStore> {
    try {
      const db = await openDB<RlmDb>(name, MIGRATIONS.length, {
        upgrade(db, from, _to, tx) {
          return migrate(db, from, tx);
        },
      });
      return new SessionStore(db);
    } catch (err) {
      throw new StorageUnavailableError(err instanceof Error ? err.message : String(err));
    }
  }

  async listSessions(): Promise<SessionRecord[]> {
    const all = await this.db.getAllFromIndex("sessions", "updatedAt");
    return all.reverse();
  }

  getSession(id: string): Promise<SessionRecord | undefined> {
    return this.db.get("sessions", id);
  }

  async saveSession(session: SessionRecord): Promise<void> {
    try {
      await this.db.put("sessions", session);
    } catch (err) {
      throw mapError(err);
    }
  }

  async addDocuments(session: SessionRecord, docs: Array<{ path: string; blob: Blob }>): Promise<void> {
    const asBlobs = await this.storesBlobs();
    const rows: DocumentRow[] = asBlobs
      ? docs.map((d) => ({ sessionId: session.id, path: d.path, blob: d.blob }))
      : await Promise.all(
          docs.map(async (d) => ({ sessionId: session.id, path: d.path, bytes: await d.blob.arrayBuffer(), type: d.blob.type })),
        );
    await this.saveSessionWith(session, (documents) => rows.map((row) => documents.put(row)));
  }

  /**
   * Whether this engine stores Blobs, found once by trying on a scratch row in a transaction of
   * its own: WebKit refuses them in ephemeral sessions, and a refused Blob in a transaction over
   * two stores never ends there (it neither aborts nor completes, and blocks every later one).
   */
  private storesBlobs(): Promise<boolean> {
    this.blobProbe ??= (async () => {
      const key = { sessionId: "\u0000probe", path: "\u0000probe" };
      try {
        const tx = this.db.transaction("documents", "readwrite");
        await Promise.all([tx.store.put({ ...key, blob: new Blob(["probe"]) }), tx.store.delete([key.sessionId, key.path]), tx.done]);
        return true;
      } catch (err) {
        if (mapError(err) instanceof StorageFullError) throw mapError(err);
        return false;
      }
    })();
    this.blobProbe.catch(() => (this.blobProbe = null)); // a full disk is not an answer: ask again next time
    return this.blobProbe;
  }

  async loadDocuments(sessionId: string): Promise<StoredDocument[]> {
    const rows = await this.db.getAllFromIndex("documents", "sessionId", sessionId);
    return rows.map((row) =>
      "blob" in row
        ? { sessionId: row.sessionId, path: row.path, blob: row.blob }
        : { sessionId: row.sessionId, path: row.path, blob: new Blob([row.bytes], { type: row.type }) },
    );
  }

  async removeDocument(session: SessionRecord, path: string): Promise<void> {
    await this.saveSessionWith(session, (documents) => [documents.delete([session.id, path])]);
  }

  /**
   * One transaction: the session's record and the change to its documents' rows land together
   * or not at all, so the list never names a document whose bytes are not stored.
   */
  private async saveSessionWith(
    session: SessionRecord,
    change: (documents: IDBPObjectStore<RlmDb, ["sessions", "documents"], "documents", "readwrite">) => Array<Promise<unknown>>,
  ): Promise<void> {
    try {
      const tx = this.db.transaction(["sessions", "documents"], "readwrite");
      await Promise.all([tx.objectStore("sessions").put(session), ...change(tx.objectStore("documents")), tx.done]);
    } catch (err) {
      throw mapError(err);
    }
  }

  async saveExchange(sessionId: string, exchange: StoredExchange): Promise<void> {
    const { record, steps } = splitExchange(exchange);
    try {
      if (!steps) {
        await this.db.put("exchanges", { ...record, sessionId });
        return;
      }
      // The record and its steps land together: the record never counts steps that are not there.
      const tx = this.db.transaction(["exchanges", "steps"], "readwrite");
      await Promise.all([
        tx.objectStore("exchanges").put({ ...record, sessionId }),
        tx.objectStore("steps").put({ id: record.id, sessionId, ...steps }),
        tx.done,
      ]);
    } catch (err) {
      throw mapError(err);
    }
  }

  async deleteExchange(id: string): Promise<void> {
    try {
      const tx = this.db.transaction(["exchanges", "steps"], "readwrite");
      await Promise.all([tx.objectStore("exchanges").delete(id), tx.objectStore("steps").delete(id), tx.done]);
    } catch (err) {
      throw mapError(err);
    }
  }

  async loadExchanges(sessionId: string): Promise<StoredExchange[]> {
    // The records only: a question's steps (every prompt of every turn) are read when shown.
    // One request per record, not one getAll, so a session of long answers is turned back into
    // objects over as many tasks (one getAll of 14 MB of answers took a single 100-200 ms task).
    const tx = this.db.transaction("exchanges");
    const keys = await tx.store.index("sessionId").getAllKeys(sessionId);
    const found = await Promise.all(keys.map((key) => tx.store.get(key)));
    const rows = found.filter((row) => row !== undefined);
    return rows.sort((a, b) => a.startedAt - b.startedAt).map(({ sessionId: _omit, ...record }) => exchangeFromRecord(record));
  }

  async loadSteps(exchangeId: string): Promise<RunSteps | null> {
    const row = await this.db.get("steps", exchangeId);
    return row ? { iterations: row.iterations, ...(row.unfinished ? { unfinished: row.unfinished } : {}) } : null;
  }

  async deleteSession(id: string): Promise<void> {
    const tx = this.db.transaction(["sessions", "documents", "exchanges", "steps"], "readwrite");
    const docKeys = await tx.objectStore("documents").index("sessionId").getAllKeys(id);
    const exKeys = await tx.objectStore("exchanges").index("sessionId").getAllKeys(id);
    const stepKeys = await tx.objectStore("steps").index("sessionId").getAllKeys(id);
    await Promise.all([
      tx.objectStore("sessions").delete(id),
      ...docKeys.map((k) => tx.objectStore("documents").delete(k)),
      ...exKeys.map((k) => tx.objectStore("exchanges").delete(k)),
      ...stepKeys.map((k) => tx.objectStore("steps").delete(k)),
      tx.done,
    ]);
  }

  close(): void {
    this.db.close();
  }
}

/** Asks the browser not to evict stored documents under storage pressure (once is enough). */
export async function requestPersistentStorage(): Promise<boolean> {
  try {
    if (!navigator.storage?.persist) return false;
    if (await navigator.storage.persisted()) return true;
    return await navigator.storage.persist();
  } catch {
    return false;
  }
}
