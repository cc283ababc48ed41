// A conversation about one set of documents, and the one owner of its life: the session's REPL
// and child REPLs, its documents, the question history, the run that is going and how it stops.
// The page and the CLI only drive it: they hand it documents and questions and show its events
// and results. Questions share the REPL, so variables survive from one question to the next and
// the model sees what was asked and answered before.
import type { ChatEngine } from "../engines/types.ts";
import type { ContextDocumentInput, ContextInfo, ContextShape, ReplBootInfo } from "../repl/protocol.ts";
import type { HistoryEntry, RebuiltRepl, SessionRepl } from "../repl/types.ts";
import { replDocumentSource } from "./context-source.ts";
import { answerDirectly, type DirectAnswer, type DocumentSource } from "./direct.ts";
import { directQuestion, runDirect } from "./direct-run.ts";
import { continueDirect, continuesDirect } from "./direct-continue.ts";
import type { FallbackAsker } from "./fallback-cost.ts";
import { runRlm, type ChildRepl, type PendingPython } from "./loop.ts";
import { abortable as abortableWork, signalAt } from "./stop.ts";
import { chooseRunMode, type RunModeChoice } from "./run-mode.ts";
import type { ResumeRun } from "./resume.ts";
import { runMetadata, trajectoryJsonl, type ExportedRun } from "./trajectory.ts";
import { UsageTracker } from "./usage.ts";
import type { IterationRecord, RlmConfig, RlmEvent, RlmEventListener, RlmResult, RunMetadataRecord } from "./types.ts";

export interface SessionEngines {
  root: ChatEngine;
  sub: ChatEngine;
}

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

/**
 * A document as the session holds it: its path (its key in `context`) and its bytes, or (the
 * CLI) the host file Python reads them from.
 */
export type SessionDocument = ({ path: string; data: Blob } | { path: string; file: string }) & {
  /**
   * Its kind in the format registry (DocumentMeta.kind: "text", "pdf", "docx"…), which Python
   * cites its places by (pages, paragraphs); plain text without one.
   */
  kind?: string;
  /**
   * The characters the document decodes to, when the caller already knows (the CLI counts a
   * file's UTF-8 without decoding it). With it, a question's first model request goes out while
   * Python is still starting and decoding (see `pending` in loop.ts); a wrong count only costs
   * that request being made again.
   */
  chars?: number;
};

/** Keys Python lists in its description of a dict `context` (describe_context in workers/python/rlm_runtime/documents.py). */
const KEYS_PREVIEW = 20;

/** `context` as Python will describe it once these documents are loaded ("auto" shape), if known. */
export function expectedContext(docs: readonly SessionDocument[]): ContextInfo | null {
  if (!docs.length || docs.some((d) => d.chars === undefined)) return null;
  const total = docs.reduce((n, d) => n + d.chars!, 0);
  if (docs.length === 1) return { type: "str", total_chars: total, items: 1 };
  return { type: "dict", total_chars: total, items: docs.length, keys_preview: docs.slice(0, KEYS_PREVIEW).map((d) => d.path) };
}

function replInput(doc: SessionDocument): ContextDocumentInput {
  const kind = doc.kind === undefined ? {} : { kind: doc.kind };
  return "file" in doc ? { name: doc.path, path: doc.file, ...kind } : { name: doc.path, data: doc.data, ...kind };
}

export class SessionBusyError extends Error {
  override name = "SessionBusyError";
  constructor() {
    super("A question is already running in this session. Wait for it or press Stop.");
  }
}

export class DocumentLoadError extends Error {
  override name = "DocumentLoadError";
  constructor(path: string, cause: unknown) {
    super(
      `The document ${path} did not reach Python (${lastLine(cause)}), so no question can be answered from it. ` +
        "Remove it and add it again; if that fails, reload the page.",
    );
  }
}

/** The useful line of an error: a Python traceback ends with "Type: message". */
function lastLine(cause: unknown): string {
  const text = (cause instanceof Error ? cause.message : String(cause)).trim();
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  return (lines.at(-1) ?? text).slice(0, 300);
}

/** What one question's run carries through the session's steps. */
interface RunContext {
  /** The questions and answers it follows (the session's own list, or a fresh try's copy). */
  history: HistoryEntry[];
  signal: AbortSignal;
  onEvent?: RlmEventListener;
  confirmFallback?: FallbackAsker;
  /** Aborts with `signal`, or when a time limit that counts from before the question ends while it is being prepared. */
  preparing?: AbortSignal;
}

class Stopped extends Error {
  override name = "Stopped";
}

export class RlmSession {
  readonly history: HistoryEntry[];
  /** Every question's run in this session, for its exports. */
  private readonly runs: ExportedRun[] = [];
  private readonly repl: SessionRepl;
  private child: SessionRepl | null = null;
  private docs: SessionDocument[] = [];
  /** The documents as they will be once the queued document work is done (in Python's order). */
  private docsAhead: SessionDocument[] = [];
  /** Document changes run one after another; a question waits for the last one. */
  private documentWork: Promise<void> = Promise.resolve();
  /** Documents that failed to load, by path, until removed or added again. */
  private readonly failedDocuments = new Map<string, DocumentLoadError>();
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
    return this.docs;
  }

  /** Starts Python now rather than at the first document or question. */
  start(): Promise<ReplBootInfo> {
    return this.repl.start();
  }

  // --- documents -------------------------------------------------------------------------

  /** Adds documents one by one: only they are decoded; the others stay as they are. */
  addDocuments(docs: SessionDocument[]): Promise<void> {
    for (const doc of docs) this.docsAhead = [...this.docsAhead.filter((d) => d.path !== doc.path), doc];
    return this.queueDocumentWork(async () => {
      for (const doc of docs) {
        try {
          await this.repl.addDocument(replInput(doc));
          this.docs = [...this.docs.filter((d) => d.path !== doc.path), doc];
          this.failedDocuments.delete(doc.path);
        } catch (err) {
          const failure = new DocumentLoadError(doc.path, err);
          this.failedDocuments.set(doc.path, failure);
          throw failure;
        }
      }
    });
  }

  /** Removes one document from `context` and lets go of its bytes. */
  removeDocument(path: string): Promise<void> {
    this.docsAhead = this.docsAhead.filter((d) => d.path !== path);
    return this.queueDocumentWork(async () => {
      this.docs = this.docs.filter((d) => d.path !== path);
      this.failedDocuments.delete(path);
      await this.repl.removeDocument(path);
    });
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
    this.docsAhead = [...docs];
    return this.queueDocumentWork(async () => {
      this.docs = [];
      this.failedDocuments.clear();
      await this.repl.resetNamespace();
      try {
        await this.repl.loadDocuments(docs.map(replInput), shape);
      } catch (err) {
        const failure = new DocumentLoadError(docs.map((d) => d.path).join(", "), err);
        for (const doc of docs) this.failedDocuments.set(doc.path, failure);
        throw failure;
      }
      this.docs = [...docs];
    });
  }

  private queueDocumentWork(work: () => Promise<void>): Promise<void> {
    const next = this.documentWork.then(work);
    this.documentWork = next.catch(() => undefined);
    return next;
  }

  /** Resolves once every document change has reached Python; rejects if one did not. */
  async documentsReady(): Promise<ContextInfo | null> {
    await this.documentWork;
    const [failure] = this.failedDocuments.values();
    if (failure) throw failure;
    return this.repl.contextInfo;
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
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
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
        ? await this.resume(question, options.resume, engines, run)
        : await this.answer(question, engines, config, run, pending);
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
   * Auto mode: one direct call when the whole document and the question fit the root's window
   * with room to answer, the RLM otherwise (or whichever the person asked for). Owned here so
   * the page and the CLI make the same choice; the result says which was used and why.
   */
  private async answer(
    question: string,
    engines: SessionEngines,
    config: RlmConfig,
    run: RunContext,
    pending?: PendingPython,
  ): Promise<RlmResult> {
    const { history, signal, onEvent } = run;
    // While Python is getting ready, only a document too big for one call is decided at once
    // (by size, as always); a closer call waits for Python and measures the text.
    const early = pending
      ? chooseRunMode(
          pending.context.total_chars,
          directQuestion(question, history).length,
          engines.root.contextWindow,
          config.runMode ?? "auto",
          config.maxTokensPerTurn,
        )
      : null;
    if (pending && early?.mode !== "rlm") {
      await abortable(pending.ready, run.preparing ?? signal);
      pending = undefined;
    }
    const choice: RunModeChoice & { document?: DocumentSource } =
      early?.mode === "rlm" && pending ? early : await this.chooseMode(question, engines.root, config, history);
    onEvent?.({ type: "run-mode", mode: choice.mode, reason: choice.reason, depth: 0 });
    if (choice.document) {
      return runDirect({
        question,
        previous: history,
        engine: engines.root,
        document: choice.document,
        config,
        reason: choice.reason,
        signal,
        ...(onEvent ? { onEvent } : {}),
      });
    }
    const result = await runRlm({
      question,
      repl: this.repl,
      rootEngine: engines.root,
      subEngine: engines.sub,
      config,
      previous: history,
      previousVariablesKept: this.variablesKept,
      signal,
      ...(onEvent ? { onEvent } : {}),
      ...(run.confirmFallback ? { confirmFallback: run.confirmFallback } : {}),
      ...(pending ? { pending } : {}),
      ...this.childRepls(),
    });
    return { ...result, mode: { used: "rlm", reason: choice.reason } };
  }

  /** Runs more turns of an earlier run of `question`, its turns replayed to the model. */
  private async resume(question: string, earlier: ResumeRun, engines: SessionEngines, run: RunContext): Promise<RlmResult> {
    const { signal, onEvent } = run;
    if (continuesDirect(earlier.iterations)) {
      return continueDirect({
        question,
        previous: run.history,
        engine: engines.root,
        document: await replDocumentSource(this.repl),
        config: this.deps.config(),
        iterations: earlier.iterations,
        signal,
        ...(onEvent ? { onEvent } : {}),
      });
    }
    const last = earlier.iterations.at(-1);
    const variablesKept = !!last && this.turnsHere.has(turnKey(last));
    if (!variablesKept)
      onEvent?.({
        type: "notice",
        message: "Python was restarted since this run: its variables are gone, so the model continues without them.",
        depth: 0,
      });
    const result = await runRlm({
      question,
      repl: this.repl,
      rootEngine: engines.root,
      subEngine: engines.sub,
      config: this.deps.config(),
      previous: run.history,
      previousVariablesKept: this.variablesKept,
      resume: { iterations: earlier.iterations, variablesKept },
      signal,
      ...(onEvent ? { onEvent } : {}),
      ...(run.confirmFallback ? { confirmFallback: run.confirmFallback } : {}),
      ...this.childRepls(),
    });
    return { ...result, mode: { used: "rlm", reason: "continuing an earlier run" } };
  }

  /** The run mode; for "direct", the document to read. Most documents are decided by size alone. */
  private async chooseMode(
    question: string,
    root: ChatEngine,
    config: RlmConfig,
    history: readonly HistoryEntry[],
  ): Promise<RunModeChoice & { document?: DocumentSource }> {
    const requested = config.runMode ?? "auto";
    const asked = directQuestion(question, history).length;
    const answerTokens = config.maxTokensPerTurn;
    const bySize = chooseRunMode(this.repl.contextInfo?.total_chars ?? 0, asked, root.contextWindow, requested, answerTokens);
    if (bySize.mode === "rlm") return bySize;
    // Close enough to fit: measure the text the direct prompt would hold (paths included).
    const document = await replDocumentSource(this.repl);
    const exact = chooseRunMode(document.totalChars, asked, root.contextWindow, requested, answerTokens);
    return exact.mode === "direct" ? { ...exact, document } : exact;
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
      ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
      ...(config.topP !== undefined ? { topP: config.topP } : {}),
      ...(config.seed !== undefined ? { seed: config.seed } : {}),
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
    if (this.runs.some((r) => r.iterations.length) || this.history.length || this.failedDocuments.size) return null;
    return expectedContext(this.docsAhead);
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
    this.docs = [];
  }
}

/** One turn's identity across copies (the page stores and reloads its iterations). */
function turnKey(it: IterationRecord): string {
  return `${it.iteration}@${it.timestamp}`;
}

/** Waits for `work` unless the signal aborts first (the work itself is left to finish). */
/** Waits for `work` unless the question is stopped first. */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return abortableWork(work, signal, () => new Stopped());
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
