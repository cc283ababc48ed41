// The recursive loop for one question, as named steps: ask the model → parse its reply → run
// the cells → observe (show the model a bounded summary) → decide (answer, limit, fallback, or go
// on). Every way a run can end — an answer, Stop, a limit, the harness taking over, an error — is
// an `Ending`, and all of them leave through `finish`, so "stopped" is written once. Sub-calls
// made by Python come back through the SubcallRouter, so every one is counted, recorded and shown.
// The run assumes a clumsy model (small-models.md): the reply is normalised and classified
// (reply.ts), the turn is played with every remedy at its place (turn.ts), and when the model
// cannot drive — no action twice, the same code again and again, stuck, or out of turns without
// an answer — the harness reads the document itself (fallback-step.ts). Prose is never an answer.
// The run's parts, each with one job, live beside it: ask-root.ts (steps 1–2), model-cells.ts
// (step 3's cells), run-control.ts (Stop, the clock, events), python-start.ts (the overlapped
// start), best-answer.ts (the last request), harness-reading.ts (the fallback's cost and consent)
// and child-runs.ts (rlm_query).
import type { ChatEngine, ChatRequest } from "../engines/types.ts";
import { askRoot, parseRoot, type RootAsked, type RootAsker } from "./ask-root.ts";
import { askBestAnswer } from "./best-answer.ts";
import { deriveBudgets, type Budgets } from "./budgets.ts";
import { childRunner } from "./child-runs.ts";
import { RootConversation } from "./conversation.ts";
import { collectReads, rankSources, withPassages, type RankedSource } from "./evidence.ts";
import { runawayNote, type TaskFacts } from "./feedback.ts";
import { EvidenceGate, ExtractionGuard, NoActionCounter, RepeatGuard, StuckDetector } from "./guards/index.ts";
import { readDocumentItself } from "./harness-reading.ts";
import { ModelCells } from "./model-cells.ts";
import { chooseProfile, PROMPT_PROFILES, type PromptProfile } from "./profiles/index.ts";
import { describeContext } from "./prompts.ts";
import { PythonStart } from "./python-start.ts";
import { iterationRecord } from "./records.ts";
import { documentProbes, replSyntaxChecker, type SyntaxChecker } from "./repl-probes.ts";
import type { ReplyAnalysis } from "./reply.ts";
import { resumedTurns } from "./resume.ts";
import { RunControl } from "./run-control.ts";
import { couldNotDrive, nothingRan, outcomeOf, STOPPED, type Ending, type Outcome } from "./run-ending.ts";
import type { RlmRunOptions } from "./run-options.ts";
import { StopSignal } from "./stop.ts";
import { SubcallRouter, newSharedRunState, type Emit, type SharedRunState } from "./subcalls.ts";
import { retryIfOnlyThinking } from "./thinking-retry.ts";
import { observationMessage, playTurn, type RunGuards, type TurnHost, type TurnOutcome } from "./turn.ts";
import type { IterationRecord, RlmConfig, RlmResult, RunStatus } from "./types.ts";

export type { ChildRepl, PendingPython, RlmRunOptions } from "./run-options.ts";

export function runRlm(options: RlmRunOptions): Promise<RlmResult> {
  return new QuestionRun(options).execute();
}

/** One question's run: its turns, its endings, and the parts of it (cells, Python's start, the clock) wired together. */
class QuestionRun {
  private readonly subEngine: ChatEngine;
  private readonly depth: number;
  private readonly shared: SharedRunState;
  private readonly budgets: Budgets;
  private readonly control: RunControl;
  private readonly stop: StopSignal;
  private readonly emit: Emit;
  private readonly router: SubcallRouter;
  private conversation: RootConversation;
  private readonly iterations: IterationRecord[] = [];
  private readonly profile: PromptProfile;
  private readonly profileReason: string;
  private readonly recursive: boolean;
  private guards: RunGuards;
  private readonly python: PythonStart;
  private readonly checkSyntax: SyntaxChecker;
  private readonly cells: ModelCells;
  private readonly rootAsker: RootAsker;
  private consecutiveErrors = 0;
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
    this.python = new PythonStart(o.repl, o.pending);
    this.control = new RunControl(o, this.shared, this.python);
    this.stop = this.control.stop;
    this.emit = this.control.emit;
    this.guards = newGuards(this.python.context()?.total_chars ?? 0, this.budgets.rootWindow);
    this.checkSyntax = replSyntaxChecker(o.repl);
    const { depth, shared, stop, subEngine } = this;
    const childRun = childRunner({ options: o, depth, shared, stop, subEngine, run: runRlm });
    this.recursive = childRun !== undefined;
    const parts = { config: o.config, budgets: this.budgets, shared, stop, emit: this.emit };
    const observe = (reply: string) => this.guards.evidence.noteOutput(reply);
    this.router = new SubcallRouter({ ...parts, rootEngine: o.rootEngine, subEngine, observe, ...(childRun ? { childRun } : {}) });
    this.cells = new ModelCells({ ...parts, repl: o.repl, router: this.router });
    this.rootAsker = { ...parts, conversation: () => this.conversation, engine: o.rootEngine };
    this.conversation = this.openConversation();
    const resumed = o.resume ? resumedTurns(o.resume.iterations, this.budgets.outputCharsPerCell, o.resume.variablesKept) : [];
    for (const t of resumed) this.conversation.addTurn(t.assistant, t.user);
    this.firstTurn = resumed.length;
  }

  private openConversation(): RootConversation {
    const o = this.o;
    return new RootConversation(
      this.profile.systemPrompt({ budgets: this.budgets, recursive: this.recursive }),
      this.profile.firstUserMessage({
        question: o.question,
        context: this.python.context(),
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
    if (!(await this.python.ready(signal))) return false;
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
    if (!this.python.waiting || (ending.kind !== "limit" && ending.kind !== "fallback")) return ending;
    // Out of time while Python still decodes the documents (a huge file): waiting for it would
    // run the command for as long again past its limit, and no cell has seen the document.
    if (ending.kind === "limit" && ending.status === "out-of-time" && !this.python.loaded) {
      return { kind: "out-of-time", message: `The ${this.control.timeLimit()} was reached while Python was still loading the documents.` };
    }
    // The time limit has tripped the run's stop already: only the person's Stop ends this wait,
    // or a limit reached during the first request would be reported as Python never loading.
    const settled = await this.pythonReady(this.o.signal ?? new AbortController().signal).then(
      () => ending,
      (err: unknown) => this.control.endingFor(err),
    );
    if (!this.python.waiting || settled.kind === "failed" || settled.kind === "stopped") return settled;
    return { kind: "failed", message: "The run ended before Python had loaded the documents." };
  }

  async execute(): Promise<RlmResult> {
    this.control.begin(this.router.handle);
    const profile = { name: this.profile.name, reason: this.profileReason };
    this.emit({ type: "run-started", question: this.o.question, contextChars: this.python.context()?.total_chars ?? 0, profile });
    try {
      return await this.finish(await this.afterPython(await this.turns()));
    } catch (err) {
      return await this.finish(await this.afterPython(this.control.endingFor(err)));
    } finally {
      this.control.end();
    }
  }

  // --- the turns ---------------------------------------------------------------------------

  private async turns(): Promise<Ending> {
    const { maxIterations } = this.o.config;
    for (let turn = this.firstTurn; turn < this.firstTurn + maxIterations; turn++) {
      const early = this.control.stopOrDeadline();
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

  private async takeTurn(turn: number): Promise<Ending | null> {
    this.emit({ type: "turn-started", turn });
    const startedAt = Date.now();
    let asked = await this.askModel(turn, undefined, this.stop.signal);
    // The first request went out while Python was loading `context`: nothing runs before it is
    // there, and a reply to a prompt that described it wrongly is asked again.
    if (await this.pythonReady()) asked = await this.askModel(turn, undefined, this.stop.signal);
    const ask = (adjust: (r: ChatRequest) => ChatRequest) => this.askModel(turn, undefined, this.stop.signal, adjust);
    const retry = await retryIfOnlyThinking(asked, ask, this.o.rootEngine.model, this.budgets.rootWindow);
    const { result, messages } = retry.asked;
    const reply = parseRoot(retry.asked, this.emit);
    const record = iterationRecord(turn, startedAt, messages, result.text);
    this.iterations.push(record);
    const outcome = await playTurn(reply, this.turnHost(turn, record));
    if (result.runaway) outcome.notes.push(runawayNote());
    if (retry.failed) outcome.fallback ??= "it spent every reply thinking and wrote nothing, even with thinking off";
    if (retry.note || outcome.checks.length) record.harness_notes = [...(retry.note ? [retry.note] : []), ...outcome.checks];
    record.final_answer = outcome.answer;
    record.iteration_time = (Date.now() - startedAt) / 1000;
    this.cells.attachDroppedMessages(record);
    this.emit({ type: "iteration", record });
    return this.decide(turn, reply, outcome);
  }

  /** Step 1: the root model's next reply (ask-root.ts). */
  private askModel(
    turn: number,
    extra: string | undefined,
    signal: AbortSignal,
    adjust?: (request: ChatRequest) => ChatRequest,
  ): Promise<RootAsked> {
    return askRoot(this.rootAsker, turn, extra, signal, adjust);
  }

  /** Step 3's access to the run: cells recorded under this turn, the task, the guards. */
  private turnHost(turn: number, record: IterationRecord): TurnHost {
    return {
      question: this.o.question,
      guards: this.guards,
      facts: () => this.facts(),
      runCell: (code) => this.cells.run(code, turn, record),
      checkSyntax: this.checkSyntax,
      ...documentProbes(this.o.repl),
      outputCharsPerCell: this.budgets.outputCharsPerCell,
      stopped: () => this.stop.reason !== null,
    };
  }

  private facts(): TaskFacts {
    return {
      question: this.o.question,
      context: describeContext(this.python.context()),
      helpers: this.profile.helpers(this.recursive),
      variables: this.cells.variables,
      allowedImports: this.profile.allowedImports,
      restate: this.profile.restateTask,
    };
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

  /** The model's best answer (best-answer.ts); without one the harness reads, unless time is up. */
  private async bestAnswer(status: RunStatus, why: string, cause: string): Promise<Outcome> {
    const best = await askBestAnswer(
      {
        turn: this.firstTurn + this.iterations.length,
        finalRequest: this.profile.finalRequest,
        userSignal: this.o.signal,
        emit: this.emit,
        ask: (turn, extra, signal) => this.askModel(turn, extra, signal),
        addStep: (record) => this.iterations.push(record),
        turnHost: (turn, record) => this.turnHost(turn, record),
      },
      status,
      why,
    );
    if (best) return best;
    if (status === "out-of-time") return { answer: "", status, message: `${why} The model's last reply gave no usable answer.` };
    return this.takeOver(couldNotDrive(`${cause}, and its last reply gave no usable answer`), status);
  }

  /** The harness reads the document itself (harness-reading.ts), recorded as one more step. */
  private takeOver(why: string, status: RunStatus): Promise<Outcome> {
    return readDocumentItself(
      {
        options: this.o,
        asker: this.depth === 0 ? this.o.confirmFallback : undefined,
        subEngine: this.subEngine,
        budgets: this.budgets,
        shared: this.shared,
        router: this.router,
        stop: this.stop,
        emit: this.emit,
        deadline: this.control.deadline,
        turn: this.firstTurn + this.iterations.length,
        timeLimit: this.control.timeLimit(),
        addStep: (record) => this.iterations.push(record),
      },
      why,
      status,
    );
  }
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
