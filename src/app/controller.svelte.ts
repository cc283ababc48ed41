// The page's controller: storage, settings, and turning session events into view state. Each
// stored session is driven by its own RlmSession (src/core), which owns that session's Python
// worker, documents, history, runs and stopping; this class never talks to Pyodide or WebLLM
// itself. Everything it needs from the browser comes in as `AppDeps`, so a unit test can build
// it with an in-memory store, a scripted engine and a stand-in REPL.
import { sourceLabel, type RankedSource } from "../core/evidence.ts";
import type { FallbackAsker } from "../core/fallback-cost.ts";
import type { ResumeRun } from "../core/resume.ts";
import { RlmSession } from "../core/session.ts";
import type { IterationRecord } from "../core/types.ts";
import type { ReplStatus, SessionRepl } from "../repl/types.ts";
import {
  requestPersistentStorage,
  type DocumentMeta,
  type SessionRecord,
  type SessionStorage,
  type StoredDocument,
} from "../store/index.ts";
import type { IngestInput } from "../ingest/index.ts";
import { titleFor } from "./lead-document.ts";
import { documentSource, type IngestFiles, type IngestProblemView, type IngestProgressView } from "./documents.ts";
import { EngineManager, type EngineStatus } from "./engines.svelte.ts";
import { Exporter } from "./exporter.svelte.ts";
import { newId } from "./ids.ts";
import { SessionLibrary, UNTITLED } from "./library.svelte.ts";
import { LiveSessions } from "./live-sessions.ts";
import { Notices } from "./notices.svelte.ts";
import { missingModel, type MissingModel } from "./remedies.ts";
import {
  applyEvent,
  applyResult,
  canContinue,
  markInterrupted,
  newExchange,
  resumeExchange,
  stepsUnread,
  type Exchange,
  type RunLimits,
} from "./run-view.ts";
import { describeEndpoint, loadSettings, saveSettings, toRlmConfig, type Settings } from "./settings.ts";
import { answeredHistory, freshTryOf, historyBefore, orderExchanges, shownExchanges, versionsOf } from "./versions.ts";
import { ViewerState, sourceRequest } from "./viewer.svelte.ts";
import type { HistoryEntry } from "../repl/types.ts";

export type { Notice } from "./notices.svelte.ts";

export interface AppDeps {
  /** The browser's session store (IndexedDB); a failure falls back to memory. */
  openStore(): Promise<SessionStorage>;
  /** A new, not yet started REPL for one session; `onStatus` reports its worker's state. */
  createRepl(onStatus: (status: ReplStatus) => void): SessionRepl;
  ingest: IngestFiles;
  /** `update` lets the engines save settings (llama.cpp chosen when there is no WebGPU, a dropped model file). */
  engines(settings: () => Settings, update: (next: Settings) => void): EngineManager;
  /** Where settings persist (localStorage in the browser). */
  settingsStorage: Pick<Storage, "getItem" | "setItem"> | null;
  download(name: string, content: string, type: string): void;
  /** Prepares a document for the viewer in the background (its map takes a moment on 100 MB). */
  prepareDocument?(blob: Blob, meta: DocumentMeta): void;
}

/** Sessions whose Python stays alive when another is opened (each holds a worker, ~50–80 MB). */
const LIVE_SESSIONS = 3;

/** What the page shows of the session that is open. */
export class SessionView {
  record = $state<SessionRecord | null>(null);
  exchanges = $state<Exchange[]>([]);
  ingest = $state<IngestProgressView | null>(null);
  problems = $state<IngestProblemView[]>([]);
  replStatus = $state<ReplStatus>({ state: "starting" });
  running = $state(false);
  stopping = $state(false);
  /** A question was held back because it had nowhere to go (no model yet); the fix is missingModel(). */
  held = $state(false);

  get totalChars(): number {
    return this.record?.documents.reduce((s, d) => s + d.chars, 0) ?? 0;
  }
}

export class AppController {
  settings: Settings;
  readonly notices = new Notices();
  readonly view = new SessionView();
  readonly engines: EngineManager;
  readonly exports: Exporter;
  readonly viewer = new ViewerState();
  library = $state<SessionLibrary | null>(null);

  private readonly live = new LiveSessions(LIVE_SESSIONS);
  /** Runs waiting for the person's choice about the fallback, by exchange: the answer settles them. */
  private readonly choices = new Map<string, (read: boolean) => void>();
  private readonly replStatuses = new Map<string, ReplStatus>();
  private abort: AbortController | null = null;

  constructor(private readonly deps: AppDeps) {
    // Settings in the page link are only a proposal, shown by App.svelte (LinkSettingsDialog);
    // applying them here sent the saved API key to whatever host a link named.
    this.settings = $state(loadSettings(deps.settingsStorage));
    this.engines = deps.engines(
      () => this.settings,
      (next) => this.updateSettings(next),
    );
    this.exports = new Exporter(
      this.view,
      this.engines,
      () => this.settings,
      this.notices,
      deps.download,
      (e) => this.readSteps(e),
    );
  }

  /** Opens storage and the last session (its Python starts), then checks for a GPU. */
  async start(): Promise<void> {
    this.library = await SessionLibrary.open(this.deps.openStore, this.notices);
    await this.library.refresh();
    const last = this.library.sessions[0];
    if (last) await this.openSession(last.id);
    else await this.newSession();
    void this.engines.probe();
  }

  updateSettings(next: Settings): void {
    this.settings = next;
    saveSettings($state.snapshot(next) as Settings, this.deps.settingsStorage);
    this.engines.settingsChanged();
  }

  // --- sessions ----------------------------------------------------------------------------

  async newSession(): Promise<void> {
    if (this.view.running || !this.library) return;
    const record = await this.library.create();
    this.show(record, []);
    this.createSession(record.id, [], []);
  }

  async openSession(id: string): Promise<void> {
    if (this.view.running || !this.library) return;
    const loaded = await this.library.load(id);
    if (!loaded) return;
    const exchanges = orderExchanges(await this.markCutOff(id, loaded.exchanges));
    this.show(loaded.record, exchanges);
    if (loaded.lost.length) this.notices.notify("warning", lostDocumentsMessage(loaded.lost));
    if (this.live.get(id)) return; // its Python kept running: variables and all
    const history = answeredHistory(exchanges);
    this.createSession(id, history, loaded.documents);
    if (history.length) {
      this.notices.notify(
        "info",
        "This session's Python was started again: its documents are loaded, but variables from earlier questions are gone.",
      );
    }
  }

  async renameSession(id: string, title: string): Promise<void> {
    const record = this.view.record?.id === id ? this.view.record : this.library?.sessions.find((s) => s.id === id);
    if (!record || !this.library) return;
    record.title = title;
    await this.library.update($state.snapshot(record) as SessionRecord);
  }

  async deleteSession(id: string): Promise<void> {
    if (!this.library || (this.view.running && this.view.record?.id === id)) return;
    this.live.close(id);
    this.replStatuses.delete(id);
    await this.library.remove(id);
    if (this.view.record?.id !== id) return;
    const next = this.library.sessions[0];
    if (next) await this.openSession(next.id);
    else await this.newSession();
  }

  private show(record: SessionRecord, exchanges: Exchange[]): void {
    this.view.record = record;
    this.view.exchanges = exchanges;
    this.view.problems = [];
    this.view.replStatus = this.replStatuses.get(record.id) ?? { state: "starting" };
  }

  /** A new RlmSession (and so a new Python worker) for a stored session, its documents loading. */
  private createSession(id: string, history: HistoryEntry[], documents: StoredDocument[]): RlmSession {
    const session = new RlmSession(
      {
        createRepl: () => this.deps.createRepl((status) => this.onReplStatus(id, status)),
        engines: () => this.engines.forRun(),
        config: () => toRlmConfig(this.settings),
      },
      { history },
    );
    this.live.add(id, session);
    void session.start().catch(() => undefined); // the status chip shows a failure
    if (documents.length) {
      // Not awaited: a question asked meanwhile waits for them (RlmSession.ask says so).
      void session.addDocuments(documents.map((d) => ({ path: d.path, data: d.blob }))).catch((err: unknown) => this.reportError(err));
    }
    return session;
  }

  /** The open session's RlmSession; recreated from storage if it was closed meanwhile. */
  private async openLiveSession(): Promise<RlmSession | null> {
    const id = this.view.record?.id;
    if (!id || !this.library) return null;
    const live = this.live.get(id);
    if (live) return live;
    const loaded = await this.library.load(id);
    return this.createSession(id, answeredHistory(this.view.exchanges), loaded?.documents ?? []);
  }

  /** Python failed to start (or died): a new sandbox for the open session, its documents reloaded. */
  async restartPython(): Promise<void> {
    const id = this.view.record?.id;
    if (!id || this.view.running) return;
    this.live.close(id);
    this.onReplStatus(id, { state: "starting" });
    await this.openLiveSession();
  }

  private onReplStatus(sessionId: string, status: ReplStatus): void {
    this.replStatuses.set(sessionId, status);
    if (this.view.record?.id === sessionId) this.view.replStatus = status;
  }

  /** Runs that were going when the page went away are marked as cut off, and saved so. */
  private async markCutOff(sessionId: string, exchanges: Exchange[]): Promise<Exchange[]> {
    const fixed = exchanges.map(markInterrupted);
    for (let i = 0; i < fixed.length; i++) {
      if (fixed[i] !== exchanges[i]) await this.library!.saveExchange(sessionId, fixed[i]!);
    }
    return fixed;
  }

  // --- documents ---------------------------------------------------------------------------

  /** Reads dropped or picked files off the main thread and adds them to the open session. */
  async addFiles(inputs: IngestInput[], dropProblems: IngestProblemView[] = []): Promise<void> {
    // A model file dropped on the page (a .gguf) is a model, not a document: an engine takes it.
    const nameOf = (i: IngestInput) => i.path ?? (i.file as File).name ?? "";
    const taker = this.engines.fileTaker(inputs.map(nameOf));
    if (taker) {
      const kinds = this.engines.hosts[taker].fileKinds!;
      const models = inputs.filter((i) => kinds.test(nameOf(i)));
      await this.addModelFiles(models.map((i) => i.file as File));
      inputs = inputs.filter((i) => !models.includes(i));
    }
    const record = this.view.record;
    if (!record || !this.library || !inputs.length) return;
    if (this.view.running) {
      this.notices.notify("warning", "Wait for the current question to finish (or press Stop) before adding documents.");
      return;
    }
    const result = await this.readFiles(
      inputs,
      record.documents.map((d) => d.path),
    );
    this.view.problems = [...dropProblems, ...(result?.problems ?? [])];
    if (!result) return;
    if (!result.documents.length) {
      if (!result.problems.length) this.notices.notify("warning", "No readable text was found in those files.");
      return;
    }
    // Stored first, listed after: what the list shows is what a reload finds.
    const saved = $state.snapshot(record) as SessionRecord;
    const next: SessionRecord = {
      ...saved,
      documents: [...saved.documents, ...result.documents.map((d) => d.meta)],
      // A repository is named by its README's title or its zip, not by whichever file came first.
      title: saved.title === UNTITLED ? titleFor(result.documents.map((d) => d.meta)) : saved.title,
    };
    // The bar stays up while a large file is written (the list shows it only then).
    const count = result.documents.length;
    this.view.ingest = {
      path: result.documents[count - 1]!.meta.path,
      phase: "saving",
      inputIndex: count - 1,
      inputCount: count,
      fraction: 1,
    };
    try {
      await this.library.addDocuments(
        next,
        result.documents.map((d) => ({ path: d.meta.path, blob: d.blob })),
      );
    } finally {
      this.view.ingest = null;
    }
    Object.assign(record, { documents: next.documents, title: next.title, updatedAt: next.updatedAt });
    // Not awaited: Firefox asks the person before it grants persistence, and the promise waits
    // for the answer (for ever if they ignore the prompt, or in automation).
    void requestPersistentStorage();
    const session = await this.openLiveSession();
    await session
      ?.addDocuments(result.documents.map((d) => ({ path: d.meta.path, data: d.blob })))
      .catch((err: unknown) => this.reportError(err));
  }

  private async readFiles(inputs: IngestInput[], taken: string[]) {
    try {
      return await this.deps.ingest(inputs, taken, (p) => (this.view.ingest = p));
    } catch (err) {
      this.notices.notify("error", `Could not read the files: ${err instanceof Error ? err.message : String(err)}`);
      return null;
    } finally {
      this.view.ingest = null;
    }
  }

  async removeDocument(path: string): Promise<void> {
    const record = this.view.record;
    if (!record || !this.library || this.view.running) return;
    record.documents = record.documents.filter((d) => d.path !== path);
    await this.library.removeDocument($state.snapshot(record) as SessionRecord, path);
    await this.live
      .get(record.id)
      ?.removeDocument(path)
      .catch((err: unknown) => this.reportError(err));
  }

  /** Empties the open session's document list, one document at a time (each is saved so). */
  async removeAllDocuments(): Promise<void> {
    for (const path of this.view.record?.documents.map((d) => d.path) ?? []) await this.removeDocument(path);
  }

  /** Opens a document of the open session in the viewer, at a source's passage when given. */
  async openDocument(path: string, source?: RankedSource): Promise<void> {
    const meta = this.view.record?.documents.find((d) => d.path === path);
    const blob = meta ? await this.documentBlob(path) : null;
    if (!meta || !blob) {
      this.notices.notify("warning", `${path} is no longer in this session, so it cannot be shown. Add it again to read it.`);
      return;
    }
    this.viewer.show(source ? sourceRequest(meta, blob, source, sourceLabel(source)) : { meta, blob });
  }

  /** The documents of an answer's first sources get their viewer map while the person reads. */
  private async prepareSources(sources: readonly RankedSource[]): Promise<void> {
    if (!this.deps.prepareDocument) return;
    for (const path of new Set(sources.slice(0, 3).map((s) => s.doc))) {
      const meta = this.view.record?.documents.find((d) => d.path === path);
      const blob = meta ? await this.documentBlob(path) : null;
      if (meta && blob) this.deps.prepareDocument(blob, meta);
    }
  }

  /** A document's bytes: from the live session if it has them, else from storage. */
  private async documentBlob(path: string): Promise<Blob | null> {
    const id = this.view.record?.id;
    if (!id || !this.library) return null;
    const live = this.live.get(id)?.documents.find((d) => d.path === path);
    // The page's documents are Blobs (a path-backed document is the CLI's).
    if (live && "data" in live) return live.data;
    const loaded = await this.library.load(id);
    return loaded?.documents.find((d) => d.path === path)?.blob ?? null;
  }

  // --- asking ------------------------------------------------------------------------------

  async ask(question: string): Promise<void> {
    const q = question.trim();
    const record = this.view.record;
    if (!q || this.view.running || !record || !this.library) return;
    if (!record.documents.length) {
      this.notices.notify("warning", "Add a document first: drop a file on the page or use the Document picker.");
      return;
    }
    if (!this.take()) return;
    const session = await this.openLiveSession();
    if (!session) return;
    this.view.exchanges.push({ ...newExchange(newId(), q), ...this.askedWith() });
    const exchange = this.view.exchanges[this.view.exchanges.length - 1]!;
    const library = this.library;
    await this.drive(session, exchange, {
      first: async () => {
        if (record.title !== UNTITLED && this.view.exchanges.length !== 1) return;
        record.title = q.length > 60 ? `${q.slice(0, 57)}…` : q;
        await library.update($state.snapshot(record) as SessionRecord);
      },
    });
  }

  /** Where a question goes and what it may use, recorded with it: every answer shows which endpoint saw it. */
  private askedWith(): Pick<Exchange, "endpoint" | "limits" | "docChars"> {
    return { endpoint: describeEndpoint(this.settings), limits: this.runLimits(), docChars: this.view.totalChars };
  }

  /**
   * Asks an earlier question again as a fresh try (Retry, Edit; issue 28 §4): the run follows
   * only the answers shown before it, never the one it retries, which a small model tends to
   * repeat. `keep`: the earlier exchange stays as another version of the question. Otherwise the
   * new try replaces it once it has an answer; a try that ends without one leaves the earlier
   * exchange as a version to go back to, so no answer is lost to a failed retry.
   */
  async askAgain(exchangeId: string, question: string, keep: boolean): Promise<void> {
    const q = question.trim();
    const earlier = this.view.exchanges.find((e) => e.id === exchangeId);
    const record = this.view.record;
    if (!q || !earlier || this.view.running || !record || !this.library || !this.take()) return;
    const session = await this.openLiveSession();
    if (!session) return;
    const history = historyBefore(shownExchanges(this.view.exchanges), earlier);
    earlier.setAside = true;
    const at = this.view.exchanges.indexOf(earlier);
    this.view.exchanges.splice(at + 1, 0, { ...newExchange(newId(), q), ...this.askedWith(), ...freshTryOf(earlier) });
    const exchange = this.view.exchanges[at + 1]!;
    await this.library.saveExchange(record.id, $state.snapshot(earlier) as Exchange);
    await this.drive(session, exchange, { history });
    if (!keep && exchange.answer) {
      this.view.exchanges = this.view.exchanges.filter((e) => e !== earlier);
      await this.library.deleteExchange(earlier.id);
    }
    session.setHistory(answeredHistory(this.view.exchanges));
  }

  /** Shows the previous (-1) or next (1) version of an exchange's question; later questions build on the one shown. */
  async showVersion(exchangeId: string, step: -1 | 1): Promise<void> {
    const current = this.view.exchanges.find((e) => e.id === exchangeId);
    const record = this.view.record;
    if (!current || !record || !this.library || this.view.running) return;
    const { all, index } = versionsOf(this.view.exchanges, current);
    const next = all[index + step];
    if (!next) return;
    current.setAside = true;
    delete next.setAside;
    for (const e of [current, next]) await this.library.saveExchange(record.id, $state.snapshot(e) as Exchange);
    this.live.get(record.id)?.setHistory(answeredHistory(this.view.exchanges));
  }

  /** The person's answer to a run's question about the fallback (read the document, or stop here). */
  answerFallback(exchangeId: string, read: boolean): void {
    this.choices.get(exchangeId)?.(read);
  }

  /**
   * How a run asks the person about the fallback: the question goes into the running exchange
   * (the page shows it with its two buttons) and the run waits for `answerFallback`, or Stop.
   */
  private fallbackAsker(exchange: Exchange, changed: () => void): FallbackAsker {
    return (question, signal) =>
      new Promise<boolean>((resolve) => {
        const settle = (read: boolean) => {
          signal.removeEventListener("abort", stopped);
          this.choices.delete(exchange.id);
          delete exchange.fallbackQuestion;
          changed();
          resolve(read);
        };
        const stopped = () => settle(false);
        signal.addEventListener("abort", stopped, { once: true });
        this.choices.set(exchange.id, settle);
        exchange.fallbackQuestion = question;
        changed();
      });
  }

  /** What stops a question from going anywhere now (no model set), or null. */
  missingModel(): MissingModel | null {
    return missingModel(this.engines.missing(), (id) => this.engines.available(id));
  }

  /**
   * Whether a question can be taken now. If not, it is held: the page keeps it in the box and
   * shows the step that is missing with its button, and no "Failed" card is made.
   */
  take(): boolean {
    this.view.held = this.missingModel() !== null;
    return !this.view.held;
  }

  /** Continues a stopped, cut-off or out-of-turns run in place, from its last turn (RlmSession owns how). */
  async continueRun(exchangeId: string): Promise<void> {
    const exchange = this.view.exchanges.find((e) => e.id === exchangeId);
    if (!exchange || this.view.running || !canContinue(exchange)) return;
    await this.readSteps(exchange); // the turns it goes on from
    if (stepsUnread(exchange)) return; // they could not be read (a notice says why)
    const session = await this.openLiveSession();
    if (!session) return;
    const iterations = $state.snapshot(exchange.iterations) as IterationRecord[];
    resumeExchange(exchange, this.runLimits());
    await this.drive(session, exchange, { resume: { iterations } });
  }

  /** Shows an exchange's steps: a reopened session reads them from storage when they are asked for. */
  async showSteps(exchangeId: string): Promise<void> {
    const exchange = this.view.exchanges.find((e) => e.id === exchangeId);
    if (exchange) await this.readSteps(exchange);
  }

  private async readSteps(exchange: Exchange): Promise<void> {
    await this.library?.loadSteps(exchange);
  }

  private runLimits(): RunLimits {
    const c = toRlmConfig(this.settings);
    return { turns: c.maxIterations, subcalls: c.maxSubcalls, timeMs: c.maxWallTimeMs };
  }

  /**
   * Runs one exchange to its end, saving it as it grows; Stop aborts it. `resume`: Continue;
   * `history`: a fresh try's (the answers before the question it retries); `first`: before the run.
   */
  private async drive(session: RlmSession, exchange: Exchange, how: RunHow = {}): Promise<void> {
    const saver = this.library!.exchangeSaver(this.view.record!.id, () => $state.snapshot(exchange) as Exchange);
    this.abort = new AbortController();
    this.view.running = true;
    this.view.stopping = false;
    try {
      await how.first?.();
      await saver.now(); // a reload right away still finds the question (marked as cut off)
      await this.run(session, exchange, this.abort.signal, saver.soon, how);
    } finally {
      await saver.now(); // the final state, whatever happened: a failed start stays "Failed"
      this.view.running = false;
      this.view.stopping = false;
      this.abort = null;
    }
  }

  private async run(session: RlmSession, exchange: Exchange, signal: AbortSignal, changed: () => void, how: RunHow): Promise<void> {
    const { resume, history } = how;
    const question = exchange.question;
    const compare = this.settings.compare && !resume ? this.runCompare(session, exchange, question, signal, changed) : Promise.resolve();
    const result = await session.ask(question, {
      signal,
      ...(resume ? { resume } : {}),
      ...(history ? { history } : {}),
      confirmFallback: this.fallbackAsker(exchange, changed),
      onEvent: (event) => {
        applyEvent(exchange, event);
        changed();
      },
    });
    applyResult(exchange, result);
    void this.prepareSources(result.sources ?? []);
    await compare;
  }

  private async runCompare(
    session: RlmSession,
    exchange: Exchange,
    question: string,
    signal: AbortSignal,
    changed: () => void,
  ): Promise<void> {
    exchange.compare = { status: "running", answer: "" };
    const view = exchange.compare;
    // The page's documents are always Blobs (only the CLI gives files by path). They are read
    // from their bytes, not from Python, which the run beside this one is using.
    const stored: StoredDocument[] = session.documents.flatMap((d) => ("data" in d ? [{ sessionId: "", path: d.path, blob: d.data }] : []));
    try {
      const direct = await session.directAnswer(question, documentSource(stored, this.view.record?.documents ?? []), {
        signal,
        onToken: (t) => {
          view.answer += t;
          changed();
        },
      });
      const { answer, durationMs, usage, shownChars, totalChars } = direct;
      Object.assign(view, { status: "done", answer, durationMs, usage, shownChars, totalChars });
    } catch (err) {
      view.status = "failed";
      view.error = signal.aborted ? "Stopped." : err instanceof Error ? err.message : String(err);
    }
    changed();
  }

  stop(): void {
    if (!this.abort) return;
    this.view.stopping = true;
    this.abort.abort();
  }

  // --- the model ---------------------------------------------------------------------------

  /** Loads the model again after a failure (a retried download resumes from cached parts). */
  /**
   * Hands model files (a GGUF, or a split model's parts) to the engine that takes them, which keeps
   * them and makes them the model. A file that cannot be used changes nothing and says why.
   */
  async addModelFiles(files: File[]): Promise<boolean> {
    if (this.view.running) {
      this.notices.notify("warning", "Wait for the current question to finish (or press Stop) before changing the model.");
      return false;
    }
    const taker = this.engines.fileTaker(files.map((f) => f.name));
    if (!taker) return false;
    try {
      const next = await this.engines.hosts[taker].takeFiles!(files, $state.snapshot(this.settings) as Settings);
      this.updateSettings(next);
      this.notices.notify("info", `${files.map((f) => f.name).join(", ")} is now the model, kept in this browser for later visits.`);
      return true;
    } catch (err) {
      this.reportError(err);
      return false;
    }
  }

  async retryModel(): Promise<void> {
    this.engines.settingsChanged();
    await this.engines.forRun().catch(() => undefined); // the banner shows the error
  }

  async reloadModel(): Promise<void> {
    await this.engines.reloadModel().catch(() => undefined); // the banner shows the error
  }

  get engineStatus(): EngineStatus {
    return this.engines.status;
  }

  private reportError(err: unknown): void {
    this.notices.notify("error", err instanceof Error ? err.message : String(err));
  }
}

/** How `drive` runs an exchange: a Continue, a fresh try's history, something to do first. */
interface RunHow {
  resume?: ResumeRun;
  history?: HistoryEntry[];
  first?: () => Promise<void>;
}

/** Names documents a session listed but whose bytes were never stored, and what to do. */
function lostDocumentsMessage(paths: string[]): string {
  const names = paths.map((p) => `“${p}”`).join(", ");
  const one = paths.length === 1;
  return `${names} ${one ? "was" : "were"} not saved before the page closed, so ${one ? "it is" : "they are"} no longer in this session. Add ${one ? "it" : "them"} again.`;
}
