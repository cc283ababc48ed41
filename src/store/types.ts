// What the page keeps between visits, as one interface: IndexedDB in the browser
// (SessionStore), memory where IndexedDB is unavailable and in tests (MemoryStore).
import type { Exchange } from "../app/run-view.ts";

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
  saveDocuments(sessionId: string, docs: Array<{ path: string; blob: Blob }>): Promise<void>;
  loadDocuments(sessionId: string): Promise<StoredDocument[]>;
  deleteDocument(sessionId: string, path: string): Promise<void>;
  saveExchange(sessionId: string, exchange: Exchange): Promise<void>;
  /** Oldest first. */
  loadExchanges(sessionId: string): Promise<Exchange[]>;
}
