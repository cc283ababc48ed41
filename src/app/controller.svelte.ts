// The orchestrator on the main thread: sessions, documents, the REPL, engines and runs. The
// Svelte components only read this state and call these methods; they never talk to Pyodide,
// WebLLM or IndexedDB themselves.
import { answerDirectly } from "../core/direct.ts";
import { runRlm } from "../core/loop.ts";
import { runMetadata } from "../core/trajectory.ts";
import type { ChatEngine } from "../engines/types.ts";
import { createBrowserRepl } from "../repl/browser.ts";
import type { ReplClient } from "../repl/client.ts";
import type { HistoryEntry, ReplStatus } from "../repl/types.ts";
import {
  SessionStore,
  StorageUnavailableError,
  requestPersistentStorage,
  type DocumentMeta,
  type SessionRecord,
  type StoredDocument,
} from "../store/index.ts";
import { EngineManager, type EngineStatus } from "./engines.svelte.ts";
import { answerMarkdown, download, fineTuneJsonl, safeFileName, trajectoryJsonl } from "./exports.ts";
import type { IngestInput } from "../ingest/index.ts";
import { documentSource, ingestForSession, type IngestProgressView, type IngestProblemView } from "./documents.ts";
import { applyEvent, markInterrupted, newExchange, type Exchange } from "./run-view.ts";
import { loadSettings, saveSettings, toRlmConfig, type Settings } from "./settings.ts";

export interface Notice {
  id: number;
  kind: "info" | "warning" | "error";
  text: string;
}

const newId = () => (globalThis.crypto?.randomUUID?.() ?? `${Date.now()}-${Math.random()}`).replace(/-/g, "").slice(0, 16);

/**
 * Saves at most every `ms`, when the page is idle, and once more after the last call: a save
 * snapshots the whole exchange, which is too much work to do per streamed token.
 */
function throttled(fn: () => Promise<void>, ms: number): { call: () => void; flush: () => Promise<void> } {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let pending = false;
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    timer = null;
    pending = false;
    running = running.then(fn, fn);
  };
  const whenIdle = (f: () => void) =>
    typeof requestIdleCallback === "function" ? requestIdleCallback(f, { timeout: ms }) : f();
  return {
    call() {
      pending = true;
      if (!timer) timer = setTimeout(() => whenIdle(run), ms);
    },
    async flush() {
      if (timer) clearTimeout(timer);
      if (pending || timer) run();
      await running;
    },
  };
}

export class AppController {
  settings: Settings;
  sessions = $state<SessionRecord[]>([]);
  session = $state<SessionRecord | null>(null);
  exchanges = $state<Exchange[]>([]);
  replStatus = $state<ReplStatus>({ state: "starting" });
  ingest = $state<IngestProgressView | null>(null);
  problems = $state<IngestProblemView[]>([]);
  notices = $state<Notice[]>([]);
  running = $state(false);
  stopping = $state(false);
  storageAvailable = $state(true);
  readonly engines: EngineManager;

  private store: SessionStore | null = null;
  private repl: ReplClient;
  private childRepl: ReplClient | null = null;
  private documents: StoredDocument[] = [];
  private abort: AbortController | null = null;
  /** Questions whose variables are in the current REPL (reset by reloads and restarts). */
  private replKnowsHistory = false;
  private noticeSeq = 0;
  private readonly syncMode: "auto" | "sab" | "jspi";

  constructor() {
    // Settings in the page link are only a proposal, shown by App.svelte (LinkSettingsDialog);
    // applying them here sent the saved API key to whatever host a link named.
    this.settings = $state(loadSettings());
    this.engines = new EngineManager(() => this.settings);
    // ?replSync=sab|jspi forces how Python waits for sub-calls (for testing both transports).
    const forced = new URLSearchParams(globalThis.location?.search ?? "").get("replSync");
    this.syncMode = forced === "sab" || forced === "jspi" ? forced : "auto";
    this.repl = createBrowserRepl({
      syncMode: this.syncMode,
      onStatus: (status) => {
        this.replStatus = status;
        if (status.state === "restarting") this.replKnowsHistory = false;
      },
    });
  }

  async start(): Promise<void> {
    void this.repl.start().catch(() => undefined); // status shows the failure
    try {
      this.store = await SessionStore.open();
    } catch (err) {
      this.storageAvailable = false;
      this.notify("warning", err instanceof StorageUnavailableError ? err.message : String(err));
    }
    await this.refreshSessions();
    const last = this.sessions[0];
    if (last) await this.openSession(last.id);
    else await this.newSession();
    void this.engines.probe();
  }

  // --- notices ---------------------------------------------------------------------------

  notify(kind: Notice["kind"], text: string): void {
    const id = ++this.noticeSeq;
    this.notices.push({ id, kind, text });
    if (kind === "info") setTimeout(() => this.dismiss(id), 8000);
  }

  dismiss(id: number): void {
    this.notices = this.notices.filter((n) => n.id !== id);
  }

  private async guardStorage(work: () => Promise<void>): Promise<void> {
    if (!this.store) return;
    try {
      await work();
    } catch (err) {
      this.notify("error", err instanceof Error ? err.message : String(err));
    }
  }

  // --- settings ----------------------------------------------------------------------------

  updateSettings(next: Settings): void {
    this.settings = next;
    saveSettings($state.snapshot(next) as Settings);
    this.engines.settingsChanged();
  }

  // --- sessions ----------------------------------------------------------------------------

  private async refreshSessions(): Promise<void> {
    if (this.store) this.sessions = await this.store.listSessions();
  }

  async newSession(): Promise<void> {
    if (this.running) return;
    const now = Date.now();
    const session: SessionRecord = { id: newId(), title: "New session", createdAt: now, updatedAt: now, documents: [] };
    this.session = session;
    this.exchanges = [];
    this.documents = [];
    this.problems = [];
    await this.guardStorage(() => this.store!.saveSession($state.snapshot(session) as SessionRecord));
    await this.refreshSessions();
    await this.loadIntoRepl(true);
  }

  async openSession(id: string): Promise<void> {
    if (this.running || !this.store) return;
    const record = await this.store.getSession(id);
    if (!record) return;
    this.session = record;
    this.problems = [];
    this.documents = await this.store.loadDocuments(id);
    const loaded = await this.store.loadExchanges(id);
    const fixed = loaded.map(markInterrupted);
    for (let i = 0; i < fixed.length; i++) {
      if (fixed[i] !== loaded[i]) await this.guardStorage(() => this.store!.saveExchange(id, fixed[i]!));
    }
    this.exchanges = fixed;
    await this.loadIntoRepl(true);
  }

  async deleteSession(id: string): Promise<void> {
    if (this.running && this.session?.id === id) return;
    await this.guardStorage(() => this.store!.deleteSession(id));
    await this.refreshSessions();
    if (this.session?.id === id) {
      const next = this.sessions[0];
      if (next) await this.openSession(next.id);
      else await this.newSession();
    }
  }

  private async touchSession(patch: Partial<SessionRecord>): Promise<void> {
    if (!this.session) return;
    Object.assign(this.session, patch, { updatedAt: Date.now() });
    const snapshot = $state.snapshot(this.session) as SessionRecord;
    await this.guardStorage(() => this.store!.saveSession(snapshot));
    await this.refreshSessions();
  }

  // --- documents ---------------------------------------------------------------------------

  /** Reads dropped or picked files off the main thread and adds them to this session. */
  async addFiles(inputs: IngestInput[], dropProblems: IngestProblemView[] = []): Promise<void> {
    if (!this.session || !inputs.length) return;
    if (this.running) {
      this.notify("warning", "Wait for the current question to finish (or press Stop) before adding documents.");
      return;
    }
    const taken = new Set(this.session.documents.map((d) => d.path));
    let result;
    try {
      result = await ingestForSession(inputs, taken, (p) => (this.ingest = p));
    } catch (err) {
      this.notify("error", `Could not read the files: ${err instanceof Error ? err.message : String(err)}`);
      return;
    } finally {
      this.ingest = null;
    }
    this.problems = [...dropProblems, ...result.problems];
    if (!result.documents.length) {
      if (!result.problems.length) this.notify("warning", "No readable text was found in those files.");
      return;
    }
    const metas: DocumentMeta[] = result.documents.map((d) => d.meta);
    const stored = result.documents.map((d) => ({ sessionId: this.session!.id, path: d.meta.path, blob: d.blob }));
    this.documents = [...this.documents, ...stored];
    const title = this.session.title === "New session" ? metas[0]!.name : this.session.title;
    await this.touchSession({ documents: [...this.session.documents, ...metas], title });
    await this.guardStorage(async () => {
      await this.store!.saveDocuments(this.session!.id, stored);
      await requestPersistentStorage();
    });
    await this.loadIntoRepl(false);
  }

  async removeDocument(path: string): Promise<void> {
    if (!this.session || this.running) return;
    this.documents = this.documents.filter((d) => d.path !== path);
    await this.touchSession({ documents: this.session.documents.filter((d) => d.path !== path) });
    await this.guardStorage(() => this.store!.deleteDocument(this.session!.id, path));
    await this.loadIntoRepl(false);
  }

  /** Puts this session's documents into the REPL as `context`. */
  private async loadIntoRepl(freshNamespace: boolean): Promise<void> {
    try {
      if (freshNamespace) {
        await this.repl.resetNamespace();
        this.replKnowsHistory = false;
      }
      const docs = this.documents.map((d) => ({ name: d.path, data: d.blob }));
      if (docs.length) await this.repl.loadDocuments(docs, "auto");
      else await this.repl.setContextText("");
    } catch (err) {
      this.notify("error", err instanceof Error ? err.message : String(err));
    }
  }

  get totalChars(): number {
    return this.session?.documents.reduce((s, d) => s + d.chars, 0) ?? 0;
  }

  // --- asking ------------------------------------------------------------------------------

  async ask(question: string): Promise<void> {
    const q = question.trim();
    if (!q || this.running || !this.session) return;
    if (!this.session.documents.length) {
      this.notify("warning", "Add a document first: drop a file on the page or use the Document picker.");
      return;
    }
    this.running = true;
    this.stopping = false;
    this.abort = new AbortController();
    const signal = this.abort.signal;
    this.exchanges.push(newExchange(newId(), q));
    const exchange = this.exchanges[this.exchanges.length - 1]!;
    const sessionId = this.session.id;
    const save = throttled(
      () => (this.store ? this.store.saveExchange(sessionId, $state.snapshot(exchange) as Exchange).catch((e: unknown) => this.notify("error", String(e instanceof Error ? e.message : e))) : Promise.resolve()),
      1500,
    );
    if (this.session.title === "New session" || this.exchanges.length === 1) {
      await this.touchSession({ title: q.length > 60 ? `${q.slice(0, 57)}…` : q });
    }
    // Saved at once, so a reload right away still finds the question (marked as cut off).
    await this.guardStorage(() => this.store!.saveExchange(sessionId, $state.snapshot(exchange) as Exchange));
    try {
      const { root, sub } = await this.engines.forRun();
      const history: HistoryEntry[] = this.exchanges
        .filter((e) => e !== exchange && e.answer)
        .map((e) => ({ question: e.question, answer: e.answer }));
      await this.repl.beginQuestion(history);
      const config = toRlmConfig(this.settings);
      const compare = this.settings.compare ? this.runCompare(exchange, root, q, signal, save.call) : Promise.resolve();
      const rlm = runRlm({
        question: q,
        repl: this.repl,
        rootEngine: root,
        subEngine: sub,
        config,
        previous: history,
        previousVariablesKept: this.replKnowsHistory,
        signal,
        onEvent: (event) => {
          applyEvent(exchange, event);
          save.call();
        },
        createChildRepl: async () => {
          this.childRepl ??= createBrowserRepl({ syncMode: this.syncMode });
          await this.childRepl.start();
          return { repl: this.childRepl, release: () => undefined };
        },
      });
      await Promise.all([rlm, compare]);
      this.replKnowsHistory = true;
    } catch (err) {
      exchange.status = signal.aborted ? "stopped" : "failed";
      exchange.message = signal.aborted ? "Stopped." : err instanceof Error ? err.message : String(err);
      exchange.endedAt = Date.now();
    } finally {
      if (exchange.status === "running") {
        exchange.status = "stopped";
        exchange.endedAt = Date.now();
      }
      await save.flush();
      this.running = false;
      this.stopping = false;
      this.abort = null;
    }
  }

  private async runCompare(exchange: Exchange, engine: ChatEngine, question: string, signal: AbortSignal, changed: () => void): Promise<void> {
    exchange.compare = { status: "running", answer: "" };
    const view = exchange.compare;
    try {
      const direct = await answerDirectly({
        engine,
        question,
        document: documentSource(this.documents, this.session?.documents ?? []),
        ...(this.settings.run.temperature !== null ? { temperature: this.settings.run.temperature } : {}),
        ...(this.settings.run.topP !== null ? { topP: this.settings.run.topP } : {}),
        ...(this.settings.run.seed !== null ? { seed: this.settings.run.seed } : {}),
        signal,
        onToken: (t) => {
          view.answer += t;
          changed();
        },
      });
      Object.assign(view, {
        status: "done",
        answer: direct.answer,
        durationMs: direct.durationMs,
        usage: direct.usage,
        shownChars: direct.shownChars,
        totalChars: direct.totalChars,
      });
    } catch (err) {
      view.status = "failed";
      view.error = signal.aborted ? "Stopped." : err instanceof Error ? err.message : String(err);
    }
    changed();
  }

  /** Loads the model again after a failure (a retried download resumes from cached parts). */
  async retryModel(): Promise<void> {
    this.engines.settingsChanged();
    try {
      await this.engines.forRun();
    } catch {
      // the banner shows the error
    }
  }

  async reloadModel(): Promise<void> {
    try {
      await this.engines.reloadModel();
    } catch {
      // the banner shows the error
    }
  }

  stop(): void {
    if (!this.abort) return;
    this.stopping = true;
    this.abort.abort();
  }

  // --- exports -----------------------------------------------------------------------------

  exportAnswer(exchange: Exchange): void {
    const docs = this.session?.documents.map((d) => d.path) ?? [];
    download(safeFileName(exchange.question, "md"), answerMarkdown(exchange, docs), "text/markdown");
  }

  private metadata() {
    const { root, sub } = this.engines.describe();
    return runMetadata(root, sub, toRlmConfig(this.settings));
  }

  exportTrajectory(exchange?: Exchange): void {
    const list = exchange ? [exchange] : this.exchanges.filter((e) => e.iterations.length);
    const name = safeFileName(exchange?.question ?? this.session?.title ?? "session", "jsonl");
    download(name, trajectoryJsonl(this.metadata(), $state.snapshot(list) as Exchange[]), "application/jsonl");
  }

  exportDataset(): void {
    const content = fineTuneJsonl($state.snapshot(this.exchanges) as Exchange[]);
    if (!content) {
      this.notify("info", "There is no answered question in this session to export yet.");
      return;
    }
    download(safeFileName(`${this.session?.title ?? "session"}-sft`, "jsonl"), content, "application/jsonl");
  }

  get engineStatus(): EngineStatus {
    return this.engines.status;
  }
}
