// The stored sessions as the page opens, creates, renames and deletes them, and the live
// RlmSession (a Python worker, its documents) behind each of the few kept running. Apart from the
// controller because which session is open and whose Python is alive is its own job.
import { RlmSession, type SessionDocument } from "../core/session.ts";
import type { HistoryEntry, ReplStatus } from "../repl/types.ts";
import type { SessionRecord } from "../store/index.ts";
import { storedSessionDocuments } from "./documents.ts";
import type { EngineManager } from "./engines.svelte.ts";
import type { SessionLibrary } from "./library.svelte.ts";
import { LiveSessions } from "./live-sessions.ts";
import type { Notices } from "./notices.svelte.ts";
import { markInterrupted, type Exchange } from "./run-view.ts";
import { toRlmConfig, type Settings } from "./settings.ts";
import type { AppDeps, SessionView } from "./session-view.svelte.ts";
import { answeredHistory, orderExchanges } from "./versions.ts";

/** Sessions whose Python stays alive when another is opened (each holds a worker, ~50–80 MB). */
const LIVE_SESSIONS = 3;

export interface SessionsHost {
  view: SessionView;
  notices: Notices;
  engines: EngineManager;
  createRepl: AppDeps["createRepl"];
  settings(): Settings;
  library(): SessionLibrary | null;
  reportError(err: unknown): void;
}

export class OpenSessions {
  private readonly live = new LiveSessions(LIVE_SESSIONS);
  private readonly replStatuses = new Map<string, ReplStatus>();

  constructor(private readonly host: SessionsHost) {}

  /** A session's RlmSession if its Python is still alive. */
  get(id: string): RlmSession | undefined {
    return this.live.get(id);
  }

  async create(): Promise<void> {
    const library = this.host.library();
    if (this.host.view.running || !library) return;
    const record = await library.create();
    this.show(record, []);
    this.createSession(record.id, [], []);
  }

  async open(id: string): Promise<void> {
    const { view, notices } = this.host;
    const library = this.host.library();
    if (view.running || !library) return;
    const loaded = await library.load(id);
    if (!loaded) return;
    const exchanges = orderExchanges(await this.markCutOff(library, id, loaded.exchanges));
    this.show(loaded.record, exchanges);
    if (loaded.lost.length) notices.notify("warning", lostDocumentsMessage(loaded.lost));
    if (this.live.get(id)) return; // its Python kept running: variables and all
    const history = answeredHistory(exchanges);
    this.createSession(id, history, storedSessionDocuments(loaded.documents, loaded.record.documents));
    if (history.length) {
      notices.notify(
        "info",
        "This session's Python was started again: its documents are loaded, but variables from earlier questions are gone.",
      );
    }
  }

  async rename(id: string, title: string): Promise<void> {
    const { view } = this.host;
    const library = this.host.library();
    const record = view.record?.id === id ? view.record : library?.sessions.find((s) => s.id === id);
    if (!record || !library) return;
    record.title = title;
    await library.update($state.snapshot(record) as SessionRecord);
  }

  async delete(id: string): Promise<void> {
    const { view } = this.host;
    const library = this.host.library();
    if (!library || (view.running && view.record?.id === id)) return;
    this.live.close(id);
    this.replStatuses.delete(id);
    await library.remove(id);
    if (view.record?.id !== id) return;
    const next = library.sessions[0];
    if (next) await this.open(next.id);
    else await this.create();
  }

  /** The open session's RlmSession; recreated from storage if it was closed meanwhile. */
  async openLive(): Promise<RlmSession | null> {
    const { view } = this.host;
    const library = this.host.library();
    const id = view.record?.id;
    if (!id || !library) return null;
    const live = this.live.get(id);
    if (live) return live;
    const loaded = await library.load(id);
    return this.createSession(
      id,
      answeredHistory(view.exchanges),
      loaded ? storedSessionDocuments(loaded.documents, loaded.record.documents) : [],
    );
  }

  /** Python failed to start (or died): a new sandbox for the open session, its documents reloaded. */
  async restartPython(): Promise<void> {
    const id = this.host.view.record?.id;
    if (!id || this.host.view.running) return;
    this.live.close(id);
    this.onReplStatus(id, { state: "starting" });
    await this.openLive();
  }

  private show(record: SessionRecord, exchanges: Exchange[]): void {
    const { view } = this.host;
    view.record = record;
    view.exchanges = exchanges;
    view.problems = [];
    view.replStatus = this.replStatuses.get(record.id) ?? { state: "starting" };
  }

  /** A new RlmSession (and so a new Python worker) for a stored session, its documents loading. */
  private createSession(id: string, history: HistoryEntry[], documents: SessionDocument[]): RlmSession {
    const { host } = this;
    const session = new RlmSession(
      {
        createRepl: () => host.createRepl((status) => this.onReplStatus(id, status)),
        engines: () => host.engines.forRun(),
        config: () => toRlmConfig(host.settings()),
      },
      { history },
    );
    this.live.add(id, session);
    void session.start().catch(() => undefined); // the status chip shows a failure
    if (documents.length) {
      // Not awaited: a question asked meanwhile waits for them (RlmSession.ask says so).
      void session.addDocuments(documents).catch((err: unknown) => host.reportError(err));
    }
    return session;
  }

  private onReplStatus(sessionId: string, status: ReplStatus): void {
    this.replStatuses.set(sessionId, status);
    if (this.host.view.record?.id === sessionId) this.host.view.replStatus = status;
  }

  /** Runs that were going when the page went away are marked as cut off, and saved so. */
  private async markCutOff(library: SessionLibrary, sessionId: string, exchanges: Exchange[]): Promise<Exchange[]> {
    const fixed = exchanges.map(markInterrupted);
    for (let i = 0; i < fixed.length; i++) {
      if (fixed[i] !== exchanges[i]) await library.saveExchange(sessionId, fixed[i]!);
    }
    return fixed;
  }
}

/** Names documents a session listed but whose bytes were never stored, and what to do. */
function lostDocumentsMessage(paths: string[]): string {
  const names = paths.map((p) => `“${p}”`).join(", ");
  const one = paths.length === 1;
  return `${names} ${one ? "was" : "were"} not saved before the page closed, so ${one ? "it is" : "they are"} no longer in this session. Add ${one ? "it" : "them"} again.`;
}
