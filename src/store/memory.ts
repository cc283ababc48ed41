// Sessions kept in memory only: used when the browser refuses IndexedDB (private windows) —
// the page still works, it just forgets on close — and by tests of the page's controller.
// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- stored records are the page's view model until issue 27 §2
import type { Exchange } from "../app/run-view.ts";
import type { SessionRecord, SessionStorage, StoredDocument } from "./types.ts";

export class MemoryStore implements SessionStorage {
  private readonly sessions = new Map<string, SessionRecord>();
  private readonly documents = new Map<string, StoredDocument>();
  private readonly exchanges = new Map<string, Exchange & { sessionId: string }>();

  async listSessions(): Promise<SessionRecord[]> {
    return [...this.sessions.values()].sort((a, b) => b.updatedAt - a.updatedAt).map((s) => structuredClone(s));
  }

  async getSession(id: string): Promise<SessionRecord | undefined> {
    const s = this.sessions.get(id);
    return s ? structuredClone(s) : undefined;
  }

  async saveSession(session: SessionRecord): Promise<void> {
    this.sessions.set(session.id, structuredClone(session));
  }

  async deleteSession(id: string): Promise<void> {
    this.sessions.delete(id);
    for (const [key, d] of this.documents) if (d.sessionId === id) this.documents.delete(key);
    for (const [key, e] of this.exchanges) if (e.sessionId === id) this.exchanges.delete(key);
  }

  async addDocuments(session: SessionRecord, docs: Array<{ path: string; blob: Blob }>): Promise<void> {
    this.sessions.set(session.id, structuredClone(session));
    for (const d of docs) this.documents.set(JSON.stringify([session.id, d.path]), { sessionId: session.id, path: d.path, blob: d.blob });
  }

  async loadDocuments(sessionId: string): Promise<StoredDocument[]> {
    return [...this.documents.values()].filter((d) => d.sessionId === sessionId);
  }

  async removeDocument(session: SessionRecord, path: string): Promise<void> {
    this.sessions.set(session.id, structuredClone(session));
    this.documents.delete(JSON.stringify([session.id, path]));
  }

  async saveExchange(sessionId: string, exchange: Exchange): Promise<void> {
    this.exchanges.set(exchange.id, { ...structuredClone(exchange), sessionId });
  }

  async deleteExchange(id: string): Promise<void> {
    this.exchanges.delete(id);
  }

  async loadExchanges(sessionId: string): Promise<Exchange[]> {
    return [...this.exchanges.values()]
      .filter((e) => e.sessionId === sessionId)
      .sort((a, b) => a.startedAt - b.startedAt)
      .map(({ sessionId: _omit, ...exchange }) => structuredClone(exchange));
  }
}
