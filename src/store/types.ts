// What the page keeps between visits, as one interface: IndexedDB in the browser
// (SessionStore), memory where IndexedDB is unavailable and in tests (MemoryStore). What a
// question's record and steps hold is schema.ts's.
import type { RunSteps, StoredExchange } from "./schema.ts";

export interface DocumentMeta {
  path: string;
  name: string;
  kind: string;
  sourceBytes: number;
  chars: number;
  tokensEstimate: number;
  encoding?: string;
  preview: string;
}

export interface SessionRecord {
  id: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  documents: DocumentMeta[];
}

export interface StoredDocument {
  sessionId: string;
  path: string;
  blob: Blob;
}

export interface SessionStorage {
  /** Newest first. */
  listSessions(): Promise<SessionRecord[]>;
  getSession(id: string): Promise<SessionRecord | undefined>;
  saveSession(session: SessionRecord): Promise<void>;
  /** The session, its documents and its exchanges. */
  deleteSession(id: string): Promise<void>;
  /**
   * Saves the session's record (which now lists `docs`) and their bytes in one step: a reload
   * in between never finds a listed document without its bytes, or bytes nobody lists.
   */
  addDocuments(session: SessionRecord, docs: Array<{ path: string; blob: Blob }>): Promise<void>;
  loadDocuments(sessionId: string): Promise<StoredDocument[]>;
  /** Saves the session's record (which no longer lists `path`) and drops its bytes, in one step. */
  removeDocument(session: SessionRecord, path: string): Promise<void>;
  /**
   * Saves a question's record and, when it has them, its steps; one read without its steps
   * (`steps` set) leaves the stored steps as they are.
   */
  saveExchange(sessionId: string, exchange: StoredExchange): Promise<void>;
  /** Oldest first; records only: `turns` and `iterations` are empty and `steps` says what they hold. */
  loadExchanges(sessionId: string): Promise<StoredExchange[]>;
  /** A question's steps (null when none were kept). */
  loadSteps(exchangeId: string): Promise<RunSteps | null>;
  /** Drops one question's record and its steps (a retry replaced it). */
  deleteExchange(id: string): Promise<void>;
}
