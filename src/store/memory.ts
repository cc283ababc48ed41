// Sessions kept in memory only: used when the browser refuses IndexedDB (private windows) —
// the page still works, it just forgets on close — and by tests of the page's controller. Kept
// as IndexedDB keeps them (records, and steps apart), so the page meets the same reads.
import { exchangeFromRecord, splitExchange, type ExchangeRecord, type RunSteps, type StoredExchange } from "./schema.ts";
import type { SessionRecord, SessionStorage, StoredDocument } from "./types.ts";

export class MemoryStore implements SessionStorage {
  private readonly sessions = new Map<string, SessionRecord>();
  private readonly documents = new Map<string, StoredDocument>();
  private readonly exchanges = new Map<string, ExchangeRecord & { sessionId: string }>();
  private readonly steps = new Map<string, RunSteps & { sessionId: string }>();

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
    for (const [key, s] of this.steps) if (s.sessionId === id) this.steps.delete(key);
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

  async saveExchange(sessionId: string, exchange: StoredExchange): Promise<void> {
    const { record, steps } = splitExchange(structuredClone(exchange));
    this.exchanges.set(record.id, { ...record, sessionId });
    if (steps) this.steps.set(record.id, { ...steps, sessionId });
  }

  async deleteExchange(id: string): Promise<void> {
    this.exchanges.delete(id);
    this.steps.delete(id);
  }

  async loadExchanges(sessionId: string): Promise<StoredExchange[]> {
    return [...this.exchanges.values()]
      .filter((e) => e.sessionId === sessionId)
      .sort((a, b) => a.startedAt - b.startedAt)
      .map(({ sessionId: _omit, ...record }) => exchangeFromRecord(structuredClone(record)));
  }

  async loadSteps(exchangeId: string): Promise<RunSteps | null> {
    const found = this.steps.get(exchangeId);
    return found ? structuredClone({ iterations: found.iterations, ...(found.unfinished ? { unfinished: found.unfinished } : {}) }) : null;
  }
}
