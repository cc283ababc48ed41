// The page's controller: storage, settings, and turning session events into view state. Each
// stored session is driven by its own RlmSession (src/core), which owns that session's Python
// worker, documents, history, runs and stopping; this class never talks to Pyodide or WebLLM
// itself. Everything it needs from the browser comes in as `AppDeps`, so a unit test can build
// it with an in-memory store, a scripted engine and a stand-in REPL.
import type { RankedSource } from "../core/evidence.ts";
import type { IterationRecord } from "../core/types.ts";
import type { IngestInput } from "../ingest/index.ts";
import type { SessionRecord } from "../store/index.ts";
import type { IngestProblemView } from "./documents.ts";
import type { EngineManager, EngineStatus } from "./engines.svelte.ts";
import { Exporter } from "./exporter.svelte.ts";
import { newId } from "./ids.ts";
import { SessionLibrary, UNTITLED } from "./library.svelte.ts";
import { Notices } from "./notices.svelte.ts";
import { OpenSessions } from "./open-sessions.svelte.ts";
import { missingModel, type MissingModel } from "./remedies.ts";
import { RunDriver, type RunHow } from "./run-driver.svelte.ts";
import { canContinue, newExchange, resumeExchange, stepsUnread, type Exchange, type RunLimits } from "./run-view.ts";
import { SessionDocuments } from "./session-documents.svelte.ts";
import { SessionView, type AppDeps } from "./session-view.svelte.ts";
import { describeEndpoint, loadSettings, saveSettings, toRlmConfig, type Settings } from "./settings.ts";
import { answeredHistory, freshTryOf, historyBefore, shownExchanges, versionsOf } from "./versions.ts";
import { ViewerState } from "./viewer.svelte.ts";
import type { RlmSession } from "../core/session.ts";

export { SessionView, type AppDeps } from "./session-view.svelte.ts";

/**
 * The page's one object: settings, the engines, and what the person asks. Its parts each have one
 * job: OpenSessions (which session is open, whose Python is alive), SessionDocuments (the open
 * session's documents), RunDriver (one run to its end, Stop, the fallback's question).
 */
export class AppController {
  settings: Settings;
  readonly notices = new Notices();
  readonly view = new SessionView();
  readonly engines: EngineManager;
  readonly exports: Exporter;
  readonly viewer = new ViewerState();
  library = $state<SessionLibrary | null>(null);

  private readonly sessions: OpenSessions;
  private readonly documents: SessionDocuments;
  private readonly runs: RunDriver;
  /** start()'s one run: files chosen before it ends wait for it (addFiles). */
  private starting: Promise<void> | undefined;

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
    const { view, notices, engines, viewer } = this;
    const library = () => this.library;
    const settings = () => this.settings;
    const reportError = (err: unknown) => this.reportError(err);
    this.sessions = new OpenSessions({ view, notices, engines, createRepl: deps.createRepl, settings, library, reportError });
    this.documents = new SessionDocuments({ view, notices, viewer, sessions: this.sessions, deps, library, reportError });
    this.runs = new RunDriver({
      view,
      settings,
      library: () => this.library!,
      answered: (sources) => void this.documents.prepareSources(sources),
    });
  }

  /** Opens storage and the last session (its Python starts), then checks for a GPU. Once. */
  start(): Promise<void> {
    this.starting ??= this.openLibrary();
    return this.starting;
  }

  private async openLibrary(): Promise<void> {
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

  // --- sessions (open-sessions.svelte.ts) ---------------------------------------------------

  newSession = (): Promise<void> => this.sessions.create();
  openSession = (id: string): Promise<void> => this.sessions.open(id);
  renameSession = (id: string, title: string): Promise<void> => this.sessions.rename(id, title);
  deleteSession = (id: string): Promise<void> => this.sessions.delete(id);
  restartPython = (): Promise<void> => this.sessions.restartPython();

  // --- documents (session-documents.svelte.ts) ----------------------------------------------

  /** Reads dropped or picked files off the main thread and adds them to the open session. */
  async addFiles(inputs: IngestInput[], dropProblems: IngestProblemView[] = []): Promise<void> {
    // The page lists its pickers before storage and the session are open (seconds on a busy
    // machine): a file chosen then waits for them instead of being dropped without a word.
    await this.starting?.catch(() => undefined);
    // A model file dropped on the page (a .gguf) is a model, not a document: an engine takes it.
    const nameOf = (i: IngestInput) => i.path ?? (i.file as File).name ?? "";
    const taker = this.engines.fileTaker(inputs.map(nameOf));
    if (taker) {
      const kinds = this.engines.hosts[taker].fileKinds!;
      const models = inputs.filter((i) => kinds.test(nameOf(i)));
      await this.addModelFiles(models.map((i) => i.file as File));
      inputs = inputs.filter((i) => !models.includes(i));
    }
    await this.documents.add(inputs, dropProblems);
  }

  removeDocument = (path: string): Promise<void> => this.documents.remove(path);
  removeAllDocuments = (): Promise<void> => this.documents.removeAll();
  openDocument = (path: string, source?: RankedSource): Promise<void> => this.documents.open(path, source);

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
    const session = await this.sessions.openLive();
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
    const session = await this.sessions.openLive();
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
    this.sessions.get(record.id)?.setHistory(answeredHistory(this.view.exchanges));
  }

  /** The person's answer to a run's question about the fallback (read the document, or stop here). */
  answerFallback = (exchangeId: string, read: boolean): void => this.runs.answerFallback(exchangeId, read);

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
    const session = await this.sessions.openLive();
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

  private drive(session: RlmSession, exchange: Exchange, how: RunHow = {}): Promise<void> {
    return this.runs.drive(session, exchange, how);
  }

  stop = (): void => this.runs.stop();

  // --- the model ---------------------------------------------------------------------------

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

  /** Loads the model again after a failure (a retried download resumes from cached parts). */
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
