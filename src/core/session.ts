// A conversation about one set of documents, and the one owner of its life: the session's REPL
// and child REPLs, its documents, the question history, the run that is going and how it stops.
// The page and the CLI only drive it: they hand it documents and questions and show its events
// and results. Questions share the REPL, so variables survive from one question to the next and
// the model sees what was asked and answered before.
import type { ContextInfo, ContextShape, ReplBootInfo } from "../repl/protocol.ts";
import type { HistoryEntry, RebuiltRepl, SessionRepl } from "../repl/types.ts";
import { answerDirectly, type DirectAnswer, type DocumentSource } from "./direct.ts";
import type { FallbackAsker } from "./fallback-cost.ts";
import type { ChildRepl, PendingPython } from "./loop.ts";
import type { ResumeRun } from "./resume.ts";
import { abortable, answerQuestion, resumeRun, Stopped, type AnswerHost, type RunContext, type SessionEngines } from "./session-answer.ts";
import { expectedContext, SessionDocumentQueue, type SessionDocument } from "./session-documents.ts";
import { signalAt } from "./stop.ts";
import { runMetadata, trajectoryJsonl, type ExportedRun } from "./trajectory.ts";
import { withTurnFacts } from "./turn-facts.ts";
import { UsageTracker } from "./usage.ts";
import type { IterationRecord, RlmConfig, RlmEvent, RlmEventListener, RlmResult, RunMetadataRecord } from "./types.ts";

export type { SessionEngines } from "./session-answer.ts";
export type { SessionDocument } from "./session-documents.ts";

export interface RlmSessionDeps {
  /** A new, not yet started REPL: called once for the session and once for its child RLMs. */
  createRepl: () => SessionRepl;
  /** The engines for the next question (the page may load a local model here). */
  engines: () => SessionEngines | Promise<SessionEngines>;
  /** Limits and sampling for the next question. */
  config: () => RlmConfig;
  /**
   * Whether `rlm_query` may start a child RLM (in a REPL of its own, from `createRepl`) when the
   * depth allows. Default true; the benchmark measures the loop without them, as it always has.
   */
  childRlms?: boolean;
}

export interface RlmSessionInit {
  /** Questions asked before this object existed (a reopened session): their variables are gone. */
  history?: HistoryEntry[];
}

export interface AskOptions {
  signal?: AbortSignal;
  onEvent?: RlmEventListener;
  /**
   * Continue an earlier run of this question (stopped, cut off, out of turns) from its last
   * turn. Its variables are kept when it ran on this session's worker and the worker was not
   * rebuilt since; otherwise it continues anyway and the model is told they are gone.
   */
  resume?: ResumeRun;
  /** Asked before the harness reads the document itself above the fallback's limits (RlmConfig.fallback). */
  confirmFallback?: FallbackAsker;
  /**
   * A fresh try of an earlier question (Retry, Edit; issue 28 §4): the questions and answers it
   * follows — those before the one asked again, never the answer being replaced, which a small
   * model tends to repeat. Its answer is not appended to the session's history: the caller puts
   * it where the question stood (`setHistory`). Without it, the run follows every answer so far.
   */
  history?: readonly HistoryEntry[];
}

export class SessionBusyError extends Error {
  override name = "SessionBusyError";
  constructor() {
    super("A question is already running in this session. Wait for it or press Stop.");
  }
}

export class RlmSession {
  readonly history: HistoryEntry[];
  /** Every question's run in this session, for its exports. */
  private readonly runs: ExportedRun[] = [];
  private readonly repl: SessionRepl;
  private child: SessionRepl | null = null;
  private readonly docs: SessionDocumentQueue;
  private running: AbortController | null = null;
  /** Whether the REPL still holds the variables of the questions in `history`. */
  private variablesKept: boolean;
  private lastEngines: SessionEngines | null = null;
  /** The turns run on the current worker (by timestamp and number): their variables are there. */
  private readonly turnsHere = new Set<string>();
  private closed = false;

  constructor(
    private readonly deps: RlmSessionDeps,
    init: RlmSessionInit = {},
  ) {
    this.repl = deps.createRepl();
    this.docs = new SessionDocumentQueue(this.repl);
    this.history = [...(init.history ?? [])];
    this.variablesKept = this.history.length === 0;
    this.repl.onRebuilt((fresh) => this.afterRebuild(fresh));
  }

  get busy(): boolean {
    return this.running !== null;
  }

  get contextInfo(): ContextInfo | null {
    return this.repl.contextInfo;
  }

  get documents(): readonly SessionDocument[] {
    return this.docs.docs;
  }

  /** Starts Python now rather than at the first document or question. */
  start(): Promise<ReplBootInfo> {
    return this.repl.start();
  }

  // --- documents -------------------------------------------------------------------------

  /** Adds documents one by one: only they are decoded; the others stay as they are. */
  addDocuments(docs: SessionDocument[]): Promise<void> {
    return this.docs.add(docs);
  }

  /** Removes one document from `context` and lets go of its bytes. */
  removeDocument(path: string): Promise<void> {
    return this.docs.remove(path);
  }

  /**
   * A new conversation over these documents in the same Python: every variable and every earlier
   * question is forgotten (and so are their runs, for the exports), and `context` becomes these
   * documents, shaped as asked. The benchmark asks each task this way, one worker for all of them.
   */
  startOver(docs: SessionDocument[], shape: ContextShape = "auto"): Promise<void> {
    if (this.running) throw new SessionBusyError();
    this.history.length = 0;
    this.runs.length = 0;
    this.turnsHere.clear();
    this.variablesKept = true;
    return this.docs.startOver(docs, shape);
  }

  /** Resolves once every document change has reached Python; rejects if one did not. */
  documentsReady(): Promise<ContextInfo | null> {
    return this.docs.ready();
  }

  // --- questions -------------------------------------------------------------------------

  /**
   * Answers one question. The returned result is the one source of the answer; events only
   * show progress. Never throws for a failed run: the result says why.
   */
  async ask(question: string, options: AskOptions = {}): Promise<RlmResult> {
    if (this.running) throw new SessionBusyError();
    const stop = new AbortController();
    this.running = stop;
    const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
    const history = options.history ? [...options.history] : this.history;
    const config = this.deps.config();
    // A clock that started before the question (rlm's) also bounds Python's start and the documents' loading.
    const timeUp = config.startedAt === undefined ? null : signalAt(config.startedAt + config.maxWallTimeMs);
    const run: RunContext = {
      history,
      signal,
      ...(timeUp ? { preparing: AbortSignal.any([signal, timeUp]) } : {}),
      // Always: the records keep each turn's facts (turn-facts.ts) whether or not anyone listens.
      onEvent: withTurnFacts(options.onEvent),
      ...(options.confirmFallback ? { confirmFallback: options.confirmFallback } : {}),
    };
    try {
      // A new question on a ready session, or one to resume, waits for Python as before; the
      // first question about documents of known size asks the model while Python gets ready.
      const overlap = options.resume ? null : this.overlappable();
      const preparing = { ...run, signal: run.preparing ?? signal };
      const { engines, pending } = overlap
        ? await this.prepareOverlapped(overlap, preparing)
        : { engines: await this.prepare(preparing), pending: undefined };
      const result = options.resume
        ? await resumeRun(this.answerHost(), question, options.resume, engines, run)
        : await answerQuestion(this.answerHost(), question, engines, config, run, pending);
      this.remember(question, result, history);
      return result;
    } catch (err) {
      if (timeUp?.aborted && !signal.aborted) return outOfTimeBeforeStart(config);
      return failedBeforeStart(signal.aborted || err instanceof Stopped ? null : err);
    } finally {
      this.running = null;
    }
  }

  /**
   * The model's answer from the documents cut to its window, in one call, with this session's
   * engine and sampling: compare mode, beside a run of the same question. The caller reads the
   * documents (`document`): a run may be using Python meanwhile, so this never asks it.
   */
  async directAnswer(
    question: string,
    document: DocumentSource,
    options: { signal?: AbortSignal; onToken?: (text: string) => void } = {},
  ): Promise<DirectAnswer> {
    const { root } = await this.deps.engines();
    const config = this.deps.config();
    return answerDirectly({
      engine: root,
      question,
      document,
      sampling: config.sampling,
      ...options,
    });
  }

  /** Stops the running question (Python is interrupted, model calls are aborted). */
  stop(): void {
    this.running?.abort();
  }

  /**
   * `context` as it will be, when the first model request can go out before Python is ready:
   * the session's first question (no worker yet holds variables that a rebuild could lose), and
   * every document's size known. Null otherwise.
   */
  private overlappable(): ContextInfo | null {
    if (this.runs.some((r) => r.iterations.length) || this.history.length || this.docs.anyFailed) return null;
    return expectedContext(this.docs.ahead);
  }

  /**
   * Like prepare(), but only the engines are waited for here: Python's start, the documents and
   * the question's setup in Python go on meanwhile, and the run waits for them before its first
   * cell (RlmRunOptions.pending). The page's waiting steps are not announced: the run's own
   * events follow at once.
   */
  private async prepareOverlapped(context: ContextInfo, run: RunContext): Promise<{ engines: SessionEngines; pending: PendingPython }> {
    const { signal, onEvent } = run;
    const ready = (async () => {
      await this.repl.start();
      await this.documentsReady();
      await this.checkResponsive(onEvent);
      await this.repl.beginQuestion(run.history);
    })();
    ready.catch(() => undefined); // the run awaits it; a question stopped first must not leave it unhandled
    onEvent?.({ type: "preparing", step: "model", depth: 0 } satisfies RlmEvent);
    const engines = await abortable(Promise.resolve(this.deps.engines()), signal);
    this.lastEngines = engines;
    return { engines, pending: { context, ready } };
  }

  /** What a question waits for before its first turn, each step announced, each abortable. */
  private async prepare(run: RunContext): Promise<SessionEngines> {
    const { signal, onEvent } = run;
    const say = (step: "python" | "documents" | "model") => onEvent?.({ type: "preparing", step, depth: 0 } satisfies RlmEvent);
    // The model is asked for while Python starts, and a model that cannot be had (an endpoint
    // known to be unreachable) fails the question at once: it waited for Python first (14 s on
    // a fresh visit) only to fail with the message the banner already showed.
    const asked = Promise.resolve().then(() => this.deps.engines());
    asked.catch(() => undefined); // awaited below; a question stopped first must not leave it unhandled
    const failed = asked.then(() => new Promise<never>(() => undefined));
    const meanwhile = <T>(work: Promise<T>) => abortable(Promise.race([work, failed]), signal);
    say("python");
    await meanwhile(this.repl.start());
    say("documents");
    await meanwhile(this.documentsReady());
    await meanwhile(this.checkResponsive(onEvent));
    say("model");
    const engines = await abortable(asked, signal);
    this.lastEngines = engines;
    // Python's `history` is what the run follows (a fresh try sees only the questions before it).
    await abortable(this.repl.beginQuestion(run.history), signal);
    return engines;
  }

  /**
   * A worker that stopped answering since the last question is rebuilt (its documents loaded
   * again) and the run is told. Checked after the documents: a worker decoding one is busy,
   * not wedged.
   */
  private async checkResponsive(onEvent?: RlmEventListener): Promise<void> {
    const rebuilt = await this.repl.ensureResponsive();
    if (!rebuilt) return;
    this.variablesKept = false;
    this.turnsHere.clear();
    onEvent?.({ type: "notice", message: rebuilt, depth: 0 });
  }

  /**
   * The answers later questions build on, in order, as the person now sees them: after a fresh
   * try, its answer where the question it replaced stood (or the version they chose).
   */
  setHistory(entries: readonly HistoryEntry[]): void {
    this.history.splice(0, this.history.length, ...entries);
  }

  private remember(question: string, result: RlmResult, followed: readonly HistoryEntry[]): void {
    for (const it of result.iterations) this.turnsHere.add(turnKey(it));
    this.runs.push({ iterations: [...result.iterations], ...(result.sources?.length ? { sources: result.sources } : {}) });
    // A fresh try (it followed another history than the session's) is placed by the caller.
    if (result.answer && followed === this.history) this.history.push({ question, answer: result.answer });
    this.variablesKept = true;
  }

  /** The worker was rebuilt: its variables are gone; give Python the history again. */
  private async afterRebuild(fresh: RebuiltRepl): Promise<void> {
    this.variablesKept = false;
    this.turnsHere.clear();
    await fresh.beginQuestion(this.history);
  }

  /** What answering a question needs of the session (session-answer.ts), as it is now. */
  private answerHost(): AnswerHost {
    return {
      repl: this.repl,
      config: () => this.deps.config(),
      variablesKept: () => this.variablesKept,
      ranHere: (turn) => this.turnsHere.has(turnKey(turn)),
      childRepls: this.childRepls(),
    };
  }

  /** What lets a run start child RLMs, unless this session's runs have none. */
  private childRepls(): { createChildRepl?: () => Promise<ChildRepl> } {
    return this.deps.childRlms === false ? {} : { createChildRepl: this.lendChildRepl };
  }

  /** Child RLMs share one extra REPL, reset before each child (see loop.ts). */
  private readonly lendChildRepl = async (): Promise<ChildRepl> => {
    if (this.closed) throw new Error("the session was closed");
    this.child ??= this.deps.createRepl();
    await this.child.start();
    return { repl: this.child, release: () => undefined };
  };

  // --- trajectories and the end ------------------------------------------------------------

  metadata(): RunMetadataRecord {
    const engines = this.lastEngines;
    const config = this.deps.config();
    if (engines) return runMetadata(engines.root, engines.sub, config);
    const none = { model: "", backend: "", contextWindow: 0 };
    return runMetadata(none, none, config);
  }

  /** Every question's run, in the official visualizer's JSONL format (trajectoryJsonl). */
  exportJsonl(): string {
    return trajectoryJsonl(this.metadata(), this.runs);
  }

  /** Ends the session's Python: its workers are terminated and its documents released. */
  close(): void {
    this.closed = true;
    this.running?.abort();
    this.repl.close();
    this.child?.close();
    this.child = null;
    this.docs.docs = [];
  }
}

/** One turn's identity across copies (the page stores and reloads its iterations). */
function turnKey(it: IterationRecord): string {
  return `${it.iteration}@${it.timestamp}`;
}

/** A question that never reached its first turn: stopped while waiting, or it could not start. */
function outOfTimeBeforeStart(config: RlmConfig): RlmResult {
  const limit = Math.round(config.maxWallTimeMs / 1000);
  const message = `The ${limit} s time limit was reached while Python was starting and loading the documents.`;
  return { answer: "", status: "out-of-time", message, iterations: [], usage: new UsageTracker().snapshot() };
}

function failedBeforeStart(err: unknown): RlmResult {
  const usage = new UsageTracker().snapshot();
  if (err === null) return { answer: "", status: "stopped", message: "Stopped before the first turn.", iterations: [], usage };
  return { answer: "", status: "failed", message: err instanceof Error ? err.message : String(err), iterations: [], usage };
}
