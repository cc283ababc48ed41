// The person's sessions as stored: the list in the sidebar, and every read and write of a
// session, its documents and its exchanges. A storage failure (full disk, blocked IndexedDB)
// becomes a notice; the page keeps working in memory.
import { newId } from "./ids.ts";
import { exchangeOf, fillSteps, stepsUnread, storedOf, type Exchange } from "./run-view.ts";
import type { Notices } from "./notices.svelte.ts";
import { MemoryStore, StorageUnavailableError, type SessionRecord, type SessionStorage, type StoredDocument } from "../store/index.ts";

const SAVE_EVERY_MS = 1500;

export const UNTITLED = "New session";

/** A stored session as opened: `lost` names listed documents whose bytes were not found. */
export interface LoadedSession {
  record: SessionRecord;
  documents: StoredDocument[];
  exchanges: Exchange[];
  lost: string[];
}

/** Saves a running exchange at most every SAVE_EVERY_MS, when the page is idle, and on demand. */
export interface ExchangeSaver {
  /** Something changed: save soon. */
  soon(): void;
  /** Save the current state now (the run ended): never skipped, whatever happened before. */
  now(): Promise<void>;
}

export class SessionLibrary {
  sessions = $state<SessionRecord[]>([]);
  /** False when sessions live in memory only (IndexedDB refused). */
  persistent = $state(true);

  private constructor(
    private readonly store: SessionStorage,
    private readonly notices: Notices,
  ) {}

  /** Opens the browser's store, or falls back to memory with a warning. */
  static async open(openStore: () => Promise<SessionStorage>, notices: Notices): Promise<SessionLibrary> {
    try {
      return new SessionLibrary(await openStore(), notices);
    } catch (err) {
      notices.notify("warning", err instanceof StorageUnavailableError ? err.message : String(err));
      const library = new SessionLibrary(new MemoryStore(), notices);
      library.persistent = false;
      return library;
    }
  }

  async refresh(): Promise<void> {
    await this.notices.guard(async () => {
      this.sessions = await this.store.listSessions();
    });
  }

  async create(): Promise<SessionRecord> {
    const now = Date.now();
    const record: SessionRecord = { id: newId(), title: UNTITLED, createdAt: now, updatedAt: now, documents: [] };
    await this.notices.guard(() => this.store.saveSession(structuredClone(record)));
    await this.refresh();
    return record;
  }

  /**
   * A stored session with the bytes of each document it lists, in the order they were added.
   * A listed document whose bytes are missing (saved by an older version in two steps, and the
   * page closed in between) is taken off the list, saved so, and named in `lost`.
   */
  async load(id: string): Promise<LoadedSession | null> {
    const loaded = await this.notices.guard(async () => {
      const record = await this.store.getSession(id);
      if (!record) return null;
      const byPath = new Map((await this.store.loadDocuments(id)).map((d) => [d.path, d]));
      const lost = record.documents.filter((d) => !byPath.has(d.path)).map((d) => d.path);
      if (lost.length) {
        record.documents = record.documents.filter((d) => byPath.has(d.path));
        await this.store.saveSession(structuredClone(record));
      }
      const documents = record.documents.map((d) => byPath.get(d.path)!);
      return { record, documents, exchanges: (await this.store.loadExchanges(id)).map(exchangeOf), lost };
    });
    if (loaded?.lost.length) await this.refresh(); // the list shows how many documents each session has
    return loaded ?? null;
  }

  /** Saves a change to a session's record (its title) and moves it to the top. */
  update(record: SessionRecord): Promise<void> {
    return this.saveRecord(record, (saved) => this.store.saveSession(saved));
  }

  async remove(id: string): Promise<void> {
    await this.notices.guard(() => this.store.deleteSession(id));
    await this.refresh();
  }

  /** Saves `record`, which now lists `docs`, together with their bytes. */
  addDocuments(record: SessionRecord, docs: Array<{ path: string; blob: Blob }>): Promise<void> {
    return this.saveRecord(record, (saved) => this.store.addDocuments(saved, docs));
  }

  /** Saves `record`, which no longer lists `path`, and drops that document's bytes. */
  removeDocument(record: SessionRecord, path: string): Promise<void> {
    return this.saveRecord(record, (saved) => this.store.removeDocument(saved, path));
  }

  /** Stamps `record` as changed now, writes a plain copy of it with `write`, and moves it to the top of the list. */
  private async saveRecord(record: SessionRecord, write: (saved: SessionRecord) => Promise<void>): Promise<void> {
    record.updatedAt = Date.now();
    await this.notices.guard(() => write(structuredClone(record)));
    await this.refresh();
  }

  async saveExchange(sessionId: string, exchange: Exchange): Promise<void> {
    await this.notices.guard(() => this.store.saveExchange(sessionId, storedOf(exchange)));
  }

  /**
   * Reads an exchange's steps (a reopened session reads its records only) into it, once: the
   * turns to show, the trajectory to export or continue from.
   */
  async loadSteps(exchange: Exchange): Promise<void> {
    if (!stepsUnread(exchange)) return;
    const steps = await this.notices.guard(() => this.store.loadSteps(exchange.id));
    // A read that failed (said as a notice) leaves them unread: a later save must not store none.
    if (steps !== undefined && stepsUnread(exchange)) fillSteps(exchange, steps);
  }

  async deleteExchange(id: string): Promise<void> {
    await this.notices.guard(() => this.store.deleteExchange(id));
  }

  /** A saver for one running exchange; `snapshot` must return plain data (no reactive proxies). */
  exchangeSaver(sessionId: string, snapshot: () => Exchange): ExchangeSaver {
    return throttledSaver(() => this.saveExchange(sessionId, snapshot()));
  }
}

/** A save snapshots the whole exchange: too much work per streamed token, so it is throttled. */
function throttledSaver(save: () => Promise<void>): ExchangeSaver {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let chain: Promise<void> = Promise.resolve();
  const run = () => {
    timer = null;
    chain = chain.then(save, save);
    return chain;
  };
  const whenIdle = (f: () => void) =>
    typeof requestIdleCallback === "function" ? requestIdleCallback(f, { timeout: SAVE_EVERY_MS }) : f();
  return {
    soon() {
      if (!timer) timer = setTimeout(() => whenIdle(() => void run()), SAVE_EVERY_MS);
    },
    now() {
      if (timer) clearTimeout(timer);
      return run();
    },
  };
}
