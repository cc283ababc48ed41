// The recursive loop for one question, as named steps: ask the model → parse its reply → run
// the cells → observe (show the model a bounded summary) → decide (answer, limit, fallback, or go
// on). Every way a run can end — an answer, Stop, a limit, the harness taking over, an error — is
// an `Ending`, and all of them leave through `finish`, so "stopped" is written once. Sub-calls
// made by Python come back through the SubcallRouter, so every one is counted, recorded and shown.
// The run assumes a clumsy model (small-models.md): the reply is normalised and classified
// (reply.ts), the turn is played with every remedy at its place (turn.ts), and when the model
// cannot drive — no action twice, the same code again and again, stuck, or out of turns without
// an answer — the harness reads the document itself (fallback-step.ts). Prose is never an answer.
import { ContextWindowExceededError, EngineAbortedError } from "../engines/errors.ts";
import type { ChatEngine, ChatMessage, ChatRequest } from "../engines/types.ts";
import type { CellResult, ContextInfo } from "../repl/protocol.ts";
import type { HistoryEntry, Repl } from "../repl/types.ts";
import { deriveBudgets, type Budgets } from "./budgets.ts";
import { collectReads, rankSources, withPassages, type RankedSource } from "./evidence.ts";
import { RootConversation } from "./conversation.ts";
import { fallbackChunkBudget, planFallback, type FallbackPlan } from "./fallback.ts";
import {
  costWords,
  endpointWords,
  estimateFallback,
  fallbackEndpoint,
  gateFallback,
  overLimits,
  readingWords,
  type FallbackAsker,
  type FallbackDecision,
  type FallbackEstimate,
  type FallbackPolicy,
} from "./fallback-cost.ts";
import { fallbackStep, fallbackSummary } from "./fallback-step.ts";
import { runawayNote, type TaskFacts } from "./feedback.ts";
import { normaliseAnswer } from "./finals.ts";
import { EvidenceGate, ExtractionGuard, NoActionCounter, RepeatGuard, StuckDetector } from "./guards/index.ts";
import { chooseProfile, PROMPT_PROFILES, type PromptProfile } from "./profiles/index.ts";
import { describeContext } from "./prompts.ts";
import { blockRecord, iterationRecord } from "./records.ts";
import { configureHelpers, documentProbes, helperLimits, replSyntaxChecker, type SyntaxChecker } from "./repl-probes.ts";
import { CALLS_LIMITED_HELPER } from "./repl-vocabulary.ts";
import { analyseReply, type ReplyAnalysis } from "./reply.ts";
import { completeRoot, rootRequest, type RootReply } from "./root-request.ts";
import { StopSignal, abortable, stoppedAfterGrace } from "./stop.ts";
import { SubcallRouter, newSharedRunState, type ChildRunner, type Emit, type SharedRunState } from "./subcalls.ts";
import { retryIfOnlyThinking } from "./thinking-retry.ts";
import { runMetadata } from "./trajectory.ts";
import { resumedTurns, type ResumeRun } from "./resume.ts";
import { observationMessage, playTurn, type RunGuards, type TurnHost, type TurnOutcome } from "./turn.ts";
import type {
  FallbackSummary,
  IterationRecord,
  RlmConfig,
  RlmEvent,
  RlmEventListener,
  RlmResult,
  RunStatus,
  SubcallRecord,
} from "./types.ts";

/** A REPL lent to a child RLM; `release` hands it back for the next child. */
export interface ChildRepl {
  repl: Repl & { resetNamespace(): Promise<void> };
  release(): void;
}
export type ChildReplFactory = () => Promise<ChildRepl>;

export interface RlmRunOptions {
  question: string;
  repl: Repl;
  rootEngine: ChatEngine;
  /** Defaults to the root engine. */
  subEngine?: ChatEngine;
  config: RlmConfig;
  /** Earlier questions and answers on the same REPL. */
  previous?: HistoryEntry[];
  /** False when the REPL lost those questions' variables (restarted since). */
  previousVariablesKept?: boolean;
  signal?: AbortSignal;
  onEvent?: RlmEventListener;
  /** Provides REPLs for child RLMs; without it rlm_query is always a plain sub-call. */
  createChildRepl?: ChildReplFactory;
  /** Continue an earlier run of the same question: its turns, replayed as the conversation. */
  resume?: ResumeRun & { variablesKept: boolean };
  /**
   * Asks the person before the harness reads the document itself above the limits of
   * `config.fallback` (issue 28). Without it such a reading is not made. Only the root run asks.
   */
  confirmFallback?: FallbackAsker;
  /**
   * Python is still starting or loading the documents (the session overlaps that with the first
   * model request): the first turn is asked from `context`, what the documents will be, and no
   * cell, probe or quote touches Python before `ready` resolves. If Python then describes
   * `context` differently (a file changed meanwhile), the first request is made again from that.
   * A rejection (a document that did not load) fails the run with its message.
   */
  pending?: PendingPython;
  /** Set by a parent run; not for callers. */
  internal?: { depth: number; shared: SharedRunState; parentSubcallId: string };
}

export interface PendingPython {
  context: ContextInfo;
  ready: Promise<void>;
}

/** Whether two descriptions of `context` give the same prompt (encodings are not in it). */
export function sameContextForPrompt(a: ContextInfo | null, b: ContextInfo | null): boolean {
  if (!a || !b) return a === b;
  const keys = (i: ContextInfo) => JSON.stringify(i.keys_preview ?? []);
  return a.type === b.type && a.total_chars === b.total_chars && a.items === b.items && keys(a) === keys(b);
}

/**
 * How a run ends. Limits still get one last request for the model's best answer (and the
 * fallback when it gives none); "fallback" hands the question to the harness's own reading.
 */
type Ending =
  | { kind: "answered"; answer: string; unsupported: boolean }
  | { kind: "stopped"; message: string }
  /** `cause`: what the model did, for the diagnosis if the harness has to take over. */
  | { kind: "limit"; status: Exclude<RunStatus, "answered" | "stopped" | "failed">; why: string; cause: string }
  | { kind: "fallback"; cause: string }
  | { kind: "failed"; message: string }
  /** Out of time with nothing to ask for: no best answer, no fallback. */
  | { kind: "out-of-time"; message: string };

/** The one diagnosis the person reads when the harness takes over (issue 28: one explanation, the right cause). */
const couldNotDrive = (cause: string) => `The model could not drive the run: ${cause}.`;

/** Without a policy (the benchmark, library callers) the harness reads without asking, as it always did. */
const READ_WITHOUT_ASKING: FallbackPolicy = { mode: "always", maxCalls: Infinity, maxTokens: Infinity };

const FINAL_REQUEST_TIMEOUT_MS = 120_000;
const STOPPED: Ending = { kind: "stopped", message: "Stopped." };

export function runRlm(options: RlmRunOptions): Promise<RlmResult> {
  return new QuestionRun(options).execute();
}

class QuestionRun {
  private readonly subEngine: ChatEngine;
  private readonly depth: number;
  private readonly shared: SharedRunState;
  private readonly budgets: Budgets;
  private readonly stop = new StopSignal();
  private readonly router: SubcallRouter;
  private conversation: RootConversation;
  private readonly iterations: IterationRecord[] = [];
  private readonly profile: PromptProfile;
  private readonly profileReason: string;
  private readonly recursive: boolean;
  private guards: RunGuards;
  /** Python's start this run overlaps (see RlmRunOptions.pending); null once it is ready. */
  private pending: PendingPython | null;
  /** Whether that start has finished (the run learns it only at its next turn). */
  private pythonLoaded = false;
  private readonly checkSyntax: SyntaxChecker;
  /** The model's variables after its last cell. */
  private variables: string[] = [];
  private helpersConfigured = false;
  private consecutiveErrors = 0;
  private deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  /** Turns of the run this one continues: this run's turns are numbered after them. */
  private readonly firstTurn: number;

  constructor(private readonly o: RlmRunOptions) {
    this.subEngine = o.subEngine ?? o.rootEngine;
    this.depth = o.internal?.depth ?? 0;
    this.shared = o.internal?.shared ?? newSharedRunState(o.config, this.subEngine);
    this.budgets = budgetsFor(o.config, o.rootEngine, this.subEngine);
    const choice = chooseProfile(o.rootEngine.model, { choice: o.config.prompt ?? "auto", rootWindow: o.rootEngine.contextWindow });
    this.profile = PROMPT_PROFILES[choice.profile];
    this.profileReason = choice.reason;
    this.pending = o.pending ?? null;
    this.pending?.ready.then(
      () => (this.pythonLoaded = true),
      () => undefined,
    );
    this.guards = newGuards(this.context()?.total_chars ?? 0, this.budgets.rootWindow);
    this.checkSyntax = replSyntaxChecker(o.repl);
    const childRun = this.childRunner();
    this.recursive = childRun !== undefined;
    this.router = new SubcallRouter({
      rootEngine: o.rootEngine,
      subEngine: this.subEngine,
      config: o.config,
      budgets: this.budgets,
      shared: this.shared,
      stop: this.stop,
      emit: this.emit,
      observe: (reply) => this.guards.evidence.noteOutput(reply),
      ...(childRun ? { childRun } : {}),
    });
    this.conversation = this.openConversation();
    const resumed = o.resume ? resumedTurns(o.resume.iterations, this.budgets.outputCharsPerCell, o.resume.variablesKept) : [];
    for (const t of resumed) this.conversation.addTurn(t.assistant, t.user);
    this.firstTurn = resumed.length;
  }

  /** What `context` is: as Python says, or as it will be while Python is still loading it. */
  private context(): ContextInfo | null {
    return this.pending ? this.pending.context : this.o.repl.contextInfo;
  }

  private openConversation(): RootConversation {
    const o = this.o;
    return new RootConversation(
      this.profile.systemPrompt({ budgets: this.budgets, recursive: this.recursive }),
      this.profile.firstUserMessage({
        question: o.question,
        context: this.context(),
        previous: o.previous ?? [],
        budgets: this.budgets,
        maxIterations: o.config.maxIterations,
        ...(o.previousVariablesKept === false ? { previousVariablesKept: false } : {}),
      }),
      this.budgets.historyTokens,
    );
  }

  /**
   * Waits for the Python start this run overlapped (Stop still stops). True when `context` is
   * not what the first request said it would be: the conversation is then opened again from it.
   */
  private async pythonReady(signal: AbortSignal = this.stop.signal): Promise<boolean> {
    const pending = this.pending;
    if (!pending) return false;
    await abortable(pending.ready, signal, () => new EngineAbortedError());
    this.pending = null;
    if (sameContextForPrompt(pending.context, this.o.repl.contextInfo)) return false;
    this.conversation = this.openConversation();
    this.guards = newGuards(this.o.repl.contextInfo?.total_chars ?? 0, this.budgets.rootWindow);
    return true;
  }

  /**
   * A run that ends before Python was ready (a model error, Stop, the time limit during the first
   * request): a limit still asks the model and may hand over to the fallback, which reads
   * `context`, so it waits for Python; the other endings do not touch it.
   */
  private async afterPython(ending: Ending): Promise<Ending> {
    if (!this.pending || (ending.kind !== "limit" && ending.kind !== "fallback")) return ending;
    // Out of time while Python still decodes the documents (a huge file): waiting for it would
    // run the command for as long again past its limit, and no cell has seen the document.
    if (ending.kind === "limit" && ending.status === "out-of-time" && !this.pythonLoaded) {
      return { kind: "out-of-time", message: `The ${this.timeLimit()} was reached while Python was still loading the documents.` };
    }
    // The time limit has tripped the run's stop already: only the person's Stop ends this wait,
    // or a limit reached during the first request would be reported as Python never loading.
    const settled = await this.pythonReady(this.o.signal ?? new AbortController().signal).then(
      () => ending,
      (err: unknown) => this.endingFor(err),
    );
    if (!this.pending || settled.kind === "failed" || settled.kind === "stopped") return settled;
    return { kind: "failed", message: "The run ended before Python had loaded the documents." };
  }

  async execute(): Promise<RlmResult> {
    this.begin();
    try {
      return await this.finish(await this.afterPython(await this.turns()));
    } catch (err) {
      return await this.finish(await this.afterPython(this.endingFor(err)));
    } finally {
      this.end();
    }
  }

  // --- lifecycle ---------------------------------------------------------------------------

  private readonly onUserAbort = () => {
    this.stop.trip("user");
    this.interruptPython();
  };

  /** Stops the running cell; while Python is still loading the documents there is none to stop. */
  private interruptPython(): void {
    if (!this.pending) this.o.repl.interrupt();
  }

  private begin(): void {
    const { signal, repl } = this.o;
    if (signal?.aborted) this.onUserAbort();
    signal?.addEventListener("abort", this.onUserAbort);
    this.armDeadline();
    repl.setSubcallHandler(this.router.handle);
    const profile = { name: this.profile.name, reason: this.profileReason };
    this.emit({ type: "run-started", question: this.o.question, contextChars: this.context()?.total_chars ?? 0, profile });
  }

  /** The run stops at the shared deadline (moved on while the person is asked something). */
  private armDeadline(): void {
    clearTimeout(this.deadlineTimer);
    this.deadlineTimer = setTimeout(
      () => {
        this.stop.trip("timeout");
        this.interruptPython();
      },
      Math.max(0, this.shared.deadline - Date.now()),
    );
  }

  /**
   * search() and map_query() learn the sub-model's limits before the first cell that calls them
   * (a run that never does costs no extra cell; a rebuilt worker forgets them). If it fails the
   * helpers keep their 4K-sized defaults: the cell itself will say what is wrong with Python.
   */
  private async configureHelpersFor(code: string): Promise<void> {
    if (this.helpersConfigured || !CALLS_LIMITED_HELPER.test(code)) return;
    this.helpersConfigured = true;
    await configureHelpers(this.o.repl, helperLimits(this.budgets, this.o.config.maxSubcalls)).catch(() => undefined);
  }

  private end(): void {
    clearTimeout(this.deadlineTimer);
    this.o.signal?.removeEventListener("abort", this.onUserAbort);
    this.o.repl.setSubcallHandler(null);
  }

  private readonly emit: Emit = (event) => {
    const parent = this.o.internal?.parentSubcallId;
    const full = { ...event, depth: this.depth, ...(parent ? { parentSubcallId: parent } : {}) } as RlmEvent;
    try {
      this.o.onEvent?.(full);
    } catch {
      // A broken listener must not break the run.
    }
  };

  // --- the turns ---------------------------------------------------------------------------

  private async turns(): Promise<Ending> {
    const { maxIterations } = this.o.config;
    for (let turn = this.firstTurn; turn < this.firstTurn + maxIterations; turn++) {
      const early = this.stopOrDeadline();
      if (early) return early;
      const ending = await this.takeTurn(turn);
      if (ending) return ending;
    }
    return {
      kind: "limit",
      status: "out-of-iterations",
      why: `All ${maxIterations} turns were used.`,
      cause: `it used all ${maxIterations} turns`,
    };
  }

  private stopOrDeadline(): Ending | null {
    if (this.stop.reason === "user") return STOPPED;
    if (this.stop.reason === "timeout" || Date.now() >= this.shared.deadline) return this.outOfTime();
    return null;
  }

  private timeLimit(): string {
    return `${Math.round(this.o.config.maxWallTimeMs / 1000)} s time limit`;
  }

  private outOfTime(): Ending {
    const why = `The ${this.timeLimit()} was reached.`;
    return { kind: "limit", status: "out-of-time", why, cause: "it ran out of time" };
  }

  private async takeTurn(turn: number): Promise<Ending | null> {
    this.emit({ type: "turn-started", turn });
    const startedAt = Date.now();
    let { result, messages } = await this.askModel(turn, undefined, this.stop.signal);
    // The first request went out while Python was loading `context`: nothing runs before it is
    // there, and a reply to a prompt that described it wrongly is asked again.
    if (await this.pythonReady()) ({ result, messages } = await this.askModel(turn, undefined, this.stop.signal));
    const ask = (adjust: (r: ChatRequest) => ChatRequest) => this.askModel(turn, undefined, this.stop.signal, adjust);
    const retry = await retryIfOnlyThinking({ result, messages }, ask, this.o.rootEngine.model, this.budgets.rootWindow);
    ({ result, messages } = retry.asked);
    const reply = this.parse(result, messages);
    const record = iterationRecord(turn, startedAt, messages, result.text);
    this.iterations.push(record);
    const outcome = await playTurn(reply, this.turnHost(turn, record));
    if (result.runaway) outcome.notes.push(runawayNote());
    if (retry.failed) outcome.fallback ??= "it spent every reply thinking and wrote nothing, even with thinking off";
    if (retry.note || outcome.checks.length) record.harness_notes = [...(retry.note ? [retry.note] : []), ...outcome.checks];
    record.final_answer = outcome.answer;
    record.iteration_time = (Date.now() - startedAt) / 1000;
    this.attachDroppedMessages(record);
    this.emit({ type: "iteration", record });
    return this.decide(turn, reply, outcome);
  }

  /** Step 1: the root model's next reply (old turns are dropped first if the window is full). */
  private async askModel(
    turn: number,
    extra: string | undefined,
    signal: AbortSignal,
    adjust: (request: ChatRequest) => ChatRequest = (r) => r,
  ): Promise<{ result: RootReply; messages: ChatMessage[] }> {
    for (let attempt = 0; ; attempt++) {
      if (this.conversation.fit(extra)) this.emit({ type: "history-compacted", droppedTurns: this.conversation.droppedTurns });
      const messages = this.conversation.messages(extra);
      const started = Date.now();
      try {
        const result = await completeRoot(this.o.rootEngine, adjust(rootRequest(this.o.config, this.budgets, messages)), {
          signal,
          onToken: (text) => this.emit({ type: "token", turn, text }),
        });
        this.shared.usage.addTime("generationMs", Date.now() - started);
        this.shared.usage.addCall(result.model || this.o.rootEngine.model, result.usage, "root");
        this.emit({ type: "turn-finished", turn, response: result.text, usage: result.usage, durationMs: Date.now() - started });
        return { result, messages };
      } catch (err) {
        this.shared.usage.addTime("generationMs", Date.now() - started);
        // The server counts tokens differently from our estimate: drop more history, once.
        if (err instanceof ContextWindowExceededError && attempt === 0 && this.conversation.shrink(extra)) {
          this.emit({ type: "history-compacted", droppedTurns: this.conversation.droppedTurns });
          continue;
        }
        throw err;
      }
    }
  }

  /** Step 2: the reply normalised and classified; faults that are not the model's are announced. */
  private parse(result: RootReply, messages: ChatMessage[]): ReplyAnalysis {
    // An echo repeats what the model was sent (a template fault), not its own earlier turns.
    const reply = analyseReply(result.text, { prompts: messages.filter((m) => m.role !== "assistant").map((m) => m.content) });
    if (reply.problems.includes("echo")) {
      this.emit({
        type: "notice",
        message: "The model repeated its prompt instead of answering: check the model's chat template and stop token.",
      });
    }
    if (result.runaway) this.emit({ type: "notice", message: "The model began repeating itself; its reply was cut there." });
    return reply;
  }

  /** Step 3's access to the run: cells recorded under this turn, the task, the guards. */
  private turnHost(turn: number, record: IterationRecord): TurnHost {
    return {
      question: this.o.question,
      guards: this.guards,
      facts: () => this.facts(),
      runCell: (code) => this.runModelCell(code, turn, record),
      checkSyntax: this.checkSyntax,
      ...documentProbes(this.o.repl),
      outputCharsPerCell: this.budgets.outputCharsPerCell,
      stopped: () => this.stop.reason !== null,
    };
  }

  private facts(): TaskFacts {
    return {
      question: this.o.question,
      context: describeContext(this.context()),
      helpers: this.profile.helpers(this.recursive),
      variables: this.variables,
      allowedImports: this.profile.allowedImports,
      restate: this.profile.restateTask,
    };
  }

  private async runModelCell(code: string, turn: number, record: IterationRecord): Promise<CellResult> {
    await this.configureHelpersFor(code);
    const records: SubcallRecord[] = [];
    const result = await this.runCell(code, turn, record.code_blocks.length, records);
    record.code_blocks.push(blockRecord(code, result, records));
    this.variables = Object.keys(result.locals);
    if (result.error === "WorkerRestarted") this.helpersConfigured = false;
    return result;
  }

  private async runCell(code: string, turn: number, cell: number, records: SubcallRecord[]): Promise<CellResult> {
    this.router.current = { turn, cell, records };
    this.emit({ type: "cell-started", turn, cell, code });
    const started = Date.now();
    try {
      const running = this.o.repl.runCell(code, { timeoutMs: this.o.config.cellTimeoutMs });
      const result = await Promise.race([running, stoppedAfterGrace(this.stop.signal)]);
      this.emit({ type: "cell-finished", turn, cell, result });
      return result;
    } finally {
      const inSubcalls = records.reduce((s, r) => s + r.execution_time * 1000, 0);
      this.shared.usage.addTime("replMs", Date.now() - started - inSubcalls);
      this.router.current = null;
    }
  }

  private attachDroppedMessages(record: IterationRecord): void {
    const dropped = this.o.repl.takeProtocolErrors?.() ?? [];
    if (!dropped.length) return;
    record.dropped_messages = dropped;
    for (const message of dropped) this.emit({ type: "notice", message });
  }

  /**
   * Steps 4–5: end the run, hand it to the fallback, or show the model what happened and go on.
   * On the last turn the model gets its final request first (`finish`), and the fallback only
   * if that gives nothing usable.
   */
  private decide(turn: number, reply: ReplyAnalysis, outcome: TurnOutcome): Ending | null {
    if (outcome.answer !== null) return { kind: "answered", answer: outcome.answer, unsupported: outcome.unsupported };
    if (this.stop.reason === "user") return STOPPED;
    const { maxIterations, maxConsecutiveErrors } = this.o.config;
    this.consecutiveErrors = outcome.raised ? this.consecutiveErrors + 1 : 0;
    const idle = this.guards.noAction.note(outcome.acted);
    const last = turn + 1 >= this.firstTurn + maxIterations;
    if (this.consecutiveErrors >= maxConsecutiveErrors) {
      this.observe(reply, outcome, "");
      const failed = `The code failed ${this.consecutiveErrors} turns in a row.`;
      return { kind: "limit", status: "too-many-errors", why: failed, cause: `its code failed ${this.consecutiveErrors} turns in a row` };
    }
    const takeOver = outcome.fallback ?? (idle.fallback ? nothingRan(idle) : null);
    if (takeOver && !last) return { kind: "fallback", cause: takeOver };
    this.observe(reply, outcome, last ? "" : this.profile.turnFooter(turn + 1, this.firstTurn + maxIterations, this.o.question));
    return null;
  }

  /** The model's reply as it is kept (thinking and invented output removed, M05) and what it is told. */
  private observe(reply: ReplyAnalysis, outcome: TurnOutcome, footer: string): void {
    const assistant = reply.normalised.text.trim() ? reply.normalised.text : "(empty reply)";
    this.conversation.addTurn(assistant, observationMessage(outcome, this.facts(), this.budgets.outputCharsPerCell, footer));
  }

  // --- endings -----------------------------------------------------------------------------

  private endingFor(err: unknown): Ending {
    if (this.stop.reason === "user") return STOPPED;
    if (this.stop.reason === "timeout") return this.outOfTime();
    if (err instanceof EngineAbortedError) return STOPPED;
    return { kind: "failed", message: err instanceof Error ? err.message : String(err) };
  }

  /** The one exit: every ending becomes the run's result here. */
  private async finish(ending: Ending): Promise<RlmResult> {
    const outcome =
      ending.kind === "limit"
        ? await this.bestAnswer(ending.status, ending.why, ending.cause)
        : ending.kind === "fallback"
          ? await this.takeOver(couldNotDrive(ending.cause), "too-many-errors")
          : outcomeOf(ending);
    const sources = await this.sourcesFor(outcome.answer);
    return { ...outcome, iterations: this.iterations, usage: this.shared.usage.snapshot(), ...(sources.length ? { sources } : {}) };
  }

  /**
   * The passages the answer came from. Only a root run reads documents (a child reads its
   * prompt), and a run without an answer has nothing to support: it ends at once, so Stop is
   * never held up by quoting.
   */
  private async sourcesFor(answer: string): Promise<RankedSource[]> {
    if (this.depth > 0 || !answer) return [];
    const { repl } = this.o;
    // A continued run's answer may rest on what its earlier turns read.
    const read = collectReads([...(this.o.resume?.iterations ?? []), ...this.iterations]);
    return withPassages(rankSources(read, answer), repl.sourcePassages?.bind(repl));
  }

  /**
   * One last request for the best answer, when turns, time or patience ran out. Its reply is
   * played like any turn (the canonical profile answers with a cell); prose is not an answer,
   * so without a usable one the harness reads the document itself — unless time is up.
   */
  private async bestAnswer(status: RunStatus, why: string, cause: string): Promise<Outcome> {
    const turn = this.firstTurn + this.iterations.length;
    this.emit({ type: "notice", message: `${why} Asking the model for its best answer.` });
    this.emit({ type: "turn-started", turn });
    const startedAt = Date.now();
    // The run's own signal may already be aborted by the deadline: only Stop and a timeout count.
    const timeout = AbortSignal.timeout(FINAL_REQUEST_TIMEOUT_MS);
    const signal = this.o.signal ? AbortSignal.any([this.o.signal, timeout]) : timeout;
    try {
      const { result, messages } = await this.askModel(turn, this.profile.finalRequest, signal);
      const record = iterationRecord(turn, startedAt, messages, result.text);
      this.iterations.push(record);
      const outcome = await playTurn(this.parse(result, messages), this.turnHost(turn, record), true);
      if (outcome.checks.length) record.harness_notes = outcome.checks;
      record.final_answer = outcome.answer;
      this.emit({ type: "iteration", record });
      if (outcome.answer !== null)
        return { answer: outcome.answer, status, message: why, producedBy: "model", ...unverified(outcome.unsupported) };
    } catch (err) {
      if (this.o.signal?.aborted) return { answer: "", status: "stopped", message: "Stopped before the model gave its best answer." };
      return { answer: "", status, message: `${why} The final request failed too: ${err instanceof Error ? err.message : String(err)}` };
    }
    if (status === "out-of-time") return { answer: "", status, message: `${why} The model's last reply gave no usable answer.` };
    return this.takeOver(couldNotDrive(`${cause}, and its last reply gave no usable answer`), status);
  }

  /**
   * The harness's own bounded map-reduce over `context` (fallback.ts), as one more step — once
   * its cost is known and allowed (fallback-cost.ts: within the limits, or the person agreed).
   * `status`: how the run ended if the fallback does not answer — never "failed", which means the
   * harness itself broke (a benchmark retries those).
   */
  private async takeOver(why: string, status: RunStatus): Promise<Outcome> {
    const weighed = await this.weighReading(why, status);
    if ("answer" in weighed) return weighed;
    const { plan, judged, concurrency } = weighed;
    const { repl, question } = this.o;
    const step = await fallbackStep({
      turn: this.firstTurn + this.iterations.length,
      why,
      question,
      repl,
      plan,
      router: this.router,
      budgets: this.budgets,
      concurrency,
      signal: this.stop.signal,
      emit: this.emit,
    });
    this.iterations.push(step.record);
    if (this.stop.reason !== null || step.error instanceof EngineAbortedError) return this.readingCut(why);
    if (!step.result) return { answer: "", status, message: `${why} The harness's own reading failed too: ${errorText(step.error)}` };
    const fallback = fallbackSummary(why, step.result, plan, judged);
    if (!step.result.answer)
      return { answer: "", status, message: `${why} The harness read the document itself and found no answer.`, fallback };
    return { answer: normaliseAnswer(step.result.answer, this.o.question), status: "answered", producedBy: "fallback", fallback };
  }

  /**
   * The harness's reading ended before it was done: by Stop, or by the run's time limit, which is
   * "out of time" with its reason, never "stopped" (nobody pressed Stop).
   */
  private readingCut(why: string): Outcome {
    if (this.stop.reason !== "timeout") return { answer: "", status: "stopped", message: "Stopped." };
    return {
      answer: "",
      status: "out-of-time",
      message: `${why} The harness began reading the document itself, but the ${this.timeLimit()} came first.`,
    };
  }

  /**
   * Before anything is spent: which pieces the reading would cover, what that would cost, and
   * whether it may go ahead. An outcome when it may not (declined, never, over the limits with
   * nobody to ask, stopped, or the plan itself failed).
   */
  private async weighReading(why: string, status: RunStatus): Promise<Outcome | AllowedReading> {
    const { config, repl, question } = this.o;
    const concurrency = Math.max(1, Math.min(config.maxConcurrentSubcalls, this.subEngine.maxConcurrency));
    let plan: FallbackPlan;
    try {
      const maxChunks = fallbackChunkBudget(config.maxSubcalls - this.shared.subcallsUsed);
      plan = await planFallback({ repl, question, budgets: this.budgets, maxChunks, signal: this.stop.signal });
    } catch (err) {
      if (this.stop.reason !== null || err instanceof EngineAbortedError) return this.readingCut(why);
      return { answer: "", status, message: `${why} The harness's own reading failed too: ${errorText(err)}` };
    }
    const estimate = estimateFallback({
      plan,
      question,
      budgets: this.budgets,
      usage: this.shared.usage.snapshot(),
      subModel: this.subEngine.model,
      concurrency,
      endpoint: fallbackEndpoint(this.subEngine),
    });
    const decision = await this.mayRead(why, estimate);
    if (decision === null) return { answer: "", status: "stopped", message: "Stopped." };
    const judged = { estimate, decision };
    if (decision === "declined" || decision === "never" || decision === "over-limits") {
      const over = overLimits(estimate, config.fallback ?? READ_WITHOUT_ASKING) ?? "";
      return { answer: "", ...notRead(why, estimate, decision, status, over), fallback: fallbackSummary(why, null, plan, judged) };
    }
    return { plan, judged, concurrency };
  }

  /**
   * Whether the harness may read: the policy decides within its limits; above them the person
   * is asked (only the root run asks, and only with someone to ask). Null: stopped meanwhile.
   * The time the person takes to answer is not the run's: the deadline moves by it.
   */
  private async mayRead(why: string, estimate: FallbackEstimate): Promise<FallbackDecision | null> {
    const policy = this.o.config.fallback ?? READ_WITHOUT_ASKING;
    const asker = this.depth === 0 ? this.o.confirmFallback : undefined;
    const gate = gateFallback(estimate, policy, asker !== undefined);
    if (gate.action !== "ask") return gate.decision;
    const question = { reason: why, estimate, over: overLimits(estimate, policy) ?? "" };
    clearTimeout(this.deadlineTimer);
    const asked = Date.now();
    try {
      const agreed = await abortable(asker!(question, this.stop.signal), this.stop.signal, () => new EngineAbortedError());
      return agreed ? "agreed" : "declined";
    } catch (err) {
      if (this.stop.reason !== null || err instanceof EngineAbortedError) return null;
      throw err;
    } finally {
      this.shared.deadline += Date.now() - asked;
      this.armDeadline();
    }
  }

  // --- child RLMs --------------------------------------------------------------------------

  /** rlm_query starts a child RLM only when depth allows and someone provides child REPLs. */
  private childRunner(): ChildRunner | undefined {
    const { config, createChildRepl } = this.o;
    if (this.depth + 1 >= config.maxDepth || !createChildRepl) return undefined;
    return (prompt, id) => this.shared.childLock.run(() => this.runChild(prompt, id));
  }

  private async runChild(prompt: string, id: string): Promise<{ text: string; record: Partial<SubcallRecord> }> {
    const child = await this.o.createChildRepl!();
    try {
      await child.repl.resetNamespace();
      await child.repl.setContextText(prompt);
      await child.repl.beginQuestion([]);
      const question = prompt.length <= 1000 ? prompt : `${prompt.slice(0, 1000)} … [the full task is in \`context\`]`;
      const result = await runRlm({
        ...this.o,
        question,
        repl: child.repl,
        previous: [],
        signal: this.stop.signal,
        internal: { depth: this.depth + 1, shared: this.shared, parentSubcallId: id },
      });
      const why = result.message ? `: ${result.message}` : "";
      return {
        text: result.answer || `Error: the child RLM ended without an answer (${result.status}${why})`,
        record: {
          metadata: { run_metadata: runMetadata(this.o.rootEngine, this.subEngine, this.o.config), iterations: result.iterations },
        },
      };
    } finally {
      child.release();
    }
  }
}

/** A fallback reading that may go ahead: its pieces, its estimate and how that was decided. */
interface AllowedReading {
  plan: FallbackPlan;
  judged: { estimate: FallbackEstimate; decision: FallbackDecision };
  concurrency: number;
}

interface Outcome {
  answer: string;
  status: RunStatus;
  message?: string;
  producedBy?: "model" | "fallback";
  fallback?: FallbackSummary;
  unverified?: string;
}

/** An answer the model submitted again after the evidence gate asked for support it never printed. */
const unverified = (unsupported: boolean): { unverified?: string } =>
  unsupported
    ? { unverified: "No output of the run showed this answer: the model was asked for evidence and submitted it again without any." }
    : {};

function outcomeOf(ending: Exclude<Ending, { kind: "limit" | "fallback" }>): Outcome {
  if (ending.kind === "answered")
    return { answer: ending.answer, status: "answered", producedBy: "model", ...unverified(ending.unsupported) };
  if (ending.kind === "out-of-time") return { answer: "", status: "out-of-time", message: ending.message };
  return { answer: "", status: ending.kind, message: ending.message };
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** A run whose fallback was not made: why, what it would have cost, and how the run ends. */
function notRead(
  why: string,
  e: FallbackEstimate,
  decision: "declined" | "never" | "over-limits",
  status: RunStatus,
  over: string,
): { status: RunStatus; message: string } {
  const would = `reading ${readingWords(e)} would take ${costWords(e)}, ${endpointWords(e.endpoint)}`;
  if (decision === "declined")
    return { status: "stopped", message: `${why} You stopped here rather than have the harness read the document: ${would}.` };
  if (decision === "never") return { status, message: `${why} The harness's own reading is turned off: ${would}.` };
  return { status, message: `${why} The harness did not read the document itself without asking: ${would} (${over}).` };
}

/** Why the no-action counter hands the run to the fallback, in words. */
function nothingRan(idle: { consecutive: number; total: number }): string {
  return idle.consecutive >= 2
    ? `it wrote nothing that could run in ${idle.consecutive} turns in a row`
    : `it wrote nothing that could run in ${idle.total} turns of this run`;
}

function newGuards(contextChars: number, rootWindowTokens: number): RunGuards {
  return {
    repeat: new RepeatGuard(),
    noAction: new NoActionCounter(),
    stuck: new StuckDetector(),
    evidence: new EvidenceGate({ contextChars, rootWindowTokens }),
    extraction: new ExtractionGuard(),
    warned: new Set(),
  };
}

function budgetsFor(config: RlmConfig, root: ChatEngine, sub: ChatEngine): Budgets {
  return deriveBudgets({
    rootWindow: root.contextWindow,
    subWindow: sub.contextWindow,
    ...(config.maxTokensPerTurn !== undefined ? { maxTokensPerTurn: config.maxTokensPerTurn } : {}),
    ...(config.subMaxTokens !== undefined ? { subMaxTokens: config.subMaxTokens } : {}),
    ...(config.outputCharsPerCell !== undefined ? { outputCharsPerCell: config.outputCharsPerCell } : {}),
  });
}
