// The recursive loop for one question, as named steps: ask the model → parse its reply → run
// the cells → observe (show the model a bounded summary) → decide (answer, limit, or go on).
// Every way a run can end — an answer, Stop, a limit, an error — is an `Ending`, and all of them
// leave through `finish`, so "stopped" is written once. Sub-calls made by Python come back through
// the SubcallRouter, so every one is counted, recorded and shown.
import { ContextWindowExceededError, EngineAbortedError } from "../engines/errors.ts";
import type { ChatEngine, ChatMessage, ChatResult } from "../engines/types.ts";
import type { CellResult } from "../repl/protocol.ts";
import type { HistoryEntry, Repl } from "../repl/types.ts";
import { deriveBudgets, type Budgets } from "./budgets.ts";
import { collectReads, rankSources, withPassages, type RankedSource } from "./evidence.ts";
import { RootConversation } from "./conversation.ts";
import { formatTurnOutput } from "./format.ts";
import { findCodeBlocks, findTextAnswer, stripThinking } from "./parse.ts";
import { FINAL_REQUEST, NO_CODE_MESSAGE, PREMATURE_FINAL_NOTE, firstUserMessage, systemPrompt, turnFooter } from "./prompts.ts";
import { blockRecord, iterationRecord } from "./records.ts";
import { StopSignal } from "./stop.ts";
import { SubcallRouter, newSharedRunState, type ChildRunner, type Emit, type SharedRunState } from "./subcalls.ts";
import { runMetadata } from "./trajectory.ts";
import type { IterationRecord, RlmConfig, RlmEvent, RlmEventListener, RlmResult, RunStatus, SubcallRecord } from "./types.ts";

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
  /** Set by a parent run; not for callers. */
  internal?: { depth: number; shared: SharedRunState; parentSubcallId: string };
}

/** How a run ends. Limits still get one last request for the model's best answer. */
type Ending =
  | { kind: "answered"; answer: string }
  | { kind: "stopped"; message: string }
  | { kind: "limit"; status: Exclude<RunStatus, "answered" | "stopped" | "failed">; why: string }
  | { kind: "failed"; message: string };

/** What running one reply's code produced. */
interface TurnStep {
  outputs: CellResult[];
  notes: string[];
  final: string | null;
  /** A cell raised (an interrupt does not count). */
  raised: boolean;
}

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
  private readonly conversation: RootConversation;
  private readonly iterations: IterationRecord[] = [];
  private consecutiveErrors = 0;
  private deadlineTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly o: RlmRunOptions) {
    this.subEngine = o.subEngine ?? o.rootEngine;
    this.depth = o.internal?.depth ?? 0;
    this.shared = o.internal?.shared ?? newSharedRunState(o.config, this.subEngine);
    this.budgets = budgetsFor(o.config, o.rootEngine, this.subEngine);
    const childRun = this.childRunner();
    this.router = new SubcallRouter({
      rootEngine: o.rootEngine,
      subEngine: this.subEngine,
      config: o.config,
      budgets: this.budgets,
      shared: this.shared,
      stop: this.stop,
      emit: this.emit,
      ...(childRun ? { childRun } : {}),
    });
    this.conversation = new RootConversation(
      systemPrompt({ budgets: this.budgets, recursive: childRun !== undefined }),
      firstUserMessage({
        question: o.question,
        context: o.repl.contextInfo,
        previous: o.previous ?? [],
        budgets: this.budgets,
        ...(o.previousVariablesKept === false ? { previousVariablesKept: false } : {}),
      }),
      this.budgets.historyTokens,
    );
  }

  async execute(): Promise<RlmResult> {
    this.begin();
    try {
      return await this.finish(await this.turns());
    } catch (err) {
      return await this.finish(this.endingFor(err));
    } finally {
      this.end();
    }
  }

  // --- lifecycle ---------------------------------------------------------------------------

  private readonly onUserAbort = () => {
    this.stop.trip("user");
    this.o.repl.interrupt();
  };

  private begin(): void {
    const { signal, repl } = this.o;
    if (signal?.aborted) this.onUserAbort();
    signal?.addEventListener("abort", this.onUserAbort);
    this.deadlineTimer = setTimeout(
      () => {
        this.stop.trip("timeout");
        repl.interrupt();
      },
      Math.max(0, this.shared.deadline - Date.now()),
    );
    repl.setSubcallHandler(this.router.handle);
    this.emit({ type: "run-started", question: this.o.question, contextChars: repl.contextInfo?.total_chars ?? 0 });
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
    for (let turn = 0; turn < maxIterations; turn++) {
      const early = this.stopOrDeadline();
      if (early) return early;
      const ending = await this.takeTurn(turn);
      if (ending) return ending;
    }
    return { kind: "limit", status: "out-of-iterations", why: `All ${maxIterations} turns were used.` };
  }

  private stopOrDeadline(): Ending | null {
    if (this.stop.reason === "user") return STOPPED;
    if (this.stop.reason === "timeout" || Date.now() >= this.shared.deadline) return this.outOfTime();
    return null;
  }

  private outOfTime(): Ending {
    return { kind: "limit", status: "out-of-time", why: `The ${Math.round(this.o.config.maxWallTimeMs / 1000)} s time limit was reached.` };
  }

  private async takeTurn(turn: number): Promise<Ending | null> {
    this.emit({ type: "turn-started", turn });
    const startedAt = Date.now();
    const { result, messages } = await this.askModel(turn, undefined, this.stop.signal);
    const record = iterationRecord(turn, startedAt, messages, result.text);
    this.iterations.push(record);
    const blocks = findCodeBlocks(result.text);
    const step = await this.runCells(turn, blocks, record);
    if (step.final === null && !this.stop.reason) await this.takeTextFinal(turn, result.text, blocks.length > 0, record, step);
    record.final_answer = step.final;
    record.iteration_time = (Date.now() - startedAt) / 1000;
    this.attachDroppedMessages(record);
    this.emit({ type: "iteration", record });
    return this.decide(turn, result.text, step);
  }

  /** Step 1: the root model's next reply (old turns are dropped first if the window is full). */
  private async askModel(turn: number, extra: string | undefined, signal: AbortSignal): Promise<{ result: ChatResult; messages: ChatMessage[] }> {
    for (let attempt = 0; ; attempt++) {
      if (this.conversation.fit(extra)) this.emit({ type: "history-compacted", droppedTurns: this.conversation.droppedTurns });
      const messages = this.conversation.messages(extra);
      const started = Date.now();
      try {
        const result = await this.o.rootEngine.complete(this.rootRequest(messages), {
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

  private rootRequest(messages: ChatMessage[]) {
    const { config } = this.o;
    return {
      messages,
      maxTokens: this.budgets.maxTokensPerTurn,
      ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
      ...(config.topP !== undefined ? { topP: config.topP } : {}),
      ...(config.seed !== undefined ? { seed: config.seed } : {}),
    };
  }

  /** Steps 2–3: the reply's code blocks, in order, until one submits an answer or Stop. */
  private async runCells(turn: number, blocks: string[], record: IterationRecord): Promise<TurnStep> {
    const step: TurnStep = { outputs: [], notes: [], final: null, raised: false };
    for (let i = 0; i < blocks.length; i++) {
      const records: SubcallRecord[] = [];
      const result = await this.runCell(blocks[i]!, turn, i, records);
      record.code_blocks.push(blockRecord(blocks[i]!, result, records));
      step.outputs.push(result);
      if (result.error && result.error !== "KeyboardInterrupt") step.raised = true;
      if (result.final_answer !== null) {
        step.final = result.final_answer;
        break;
      }
      if (this.stop.reason) break;
    }
    return step;
  }

  private async runCell(code: string, turn: number, cell: number, records: SubcallRecord[]): Promise<CellResult> {
    this.router.current = { turn, cell, records };
    this.emit({ type: "cell-started", turn, cell, code });
    const started = Date.now();
    try {
      const result = await this.o.repl.runCell(code, { timeoutMs: this.o.config.cellTimeoutMs });
      this.emit({ type: "cell-finished", turn, cell, result });
      return result;
    } finally {
      const inSubcalls = records.reduce((s, r) => s + r.execution_time * 1000, 0);
      this.shared.usage.addTime("replMs", Date.now() - started - inSubcalls);
      this.router.current = null;
    }
  }

  /**
   * A FINAL written as plain text. Next to code it is refused: it was written before the model
   * saw the output. FINAL_VAR(name) asks the REPL for the variable.
   */
  private async takeTextFinal(turn: number, response: string, hadCode: boolean, record: IterationRecord, step: TurnStep): Promise<void> {
    const text = findTextAnswer(response);
    if (!text) return;
    if (hadCode) {
      step.notes.push(PREMATURE_FINAL_NOTE);
      return;
    }
    if (text.kind === "final") {
      step.final = text.value;
      return;
    }
    const resolved = await this.resolveVariable(text.name, turn, record);
    if (resolved.final_answer !== null) step.final = resolved.final_answer;
    else step.outputs.push(resolved);
  }

  private async resolveVariable(name: string, turn: number, record: IterationRecord): Promise<CellResult> {
    const code = `FINAL_VAR(${JSON.stringify(name)})`;
    const records: SubcallRecord[] = [];
    const result = await this.runCell(code, turn, 0, records);
    record.code_blocks.push(blockRecord(code, result, records));
    return result;
  }

  private attachDroppedMessages(record: IterationRecord): void {
    const dropped = this.o.repl.takeProtocolErrors?.() ?? [];
    if (!dropped.length) return;
    record.dropped_messages = dropped;
    for (const message of dropped) this.emit({ type: "notice", message });
  }

  /** Steps 4–5: end the run, or show the model what happened and go on. */
  private decide(turn: number, response: string, step: TurnStep): Ending | null {
    if (step.final !== null) return { kind: "answered", answer: step.final };
    if (this.stop.reason === "user") return STOPPED;
    this.consecutiveErrors = step.raised ? this.consecutiveErrors + 1 : 0;
    if (this.consecutiveErrors >= this.o.config.maxConsecutiveErrors) {
      this.observe(response, step, "");
      return { kind: "limit", status: "too-many-errors", why: `The code failed ${this.consecutiveErrors} turns in a row.` };
    }
    const { maxIterations } = this.o.config;
    this.observe(response, step, turn + 1 < maxIterations ? turnFooter(turn + 1, maxIterations) : "");
    return null;
  }

  private observe(response: string, step: TurnStep, footer: string): void {
    const message = step.outputs.length
      ? formatTurnOutput(step.outputs, this.budgets.outputCharsPerCell, step.notes, footer)
      : [NO_CODE_MESSAGE, footer].filter(Boolean).join("\n\n");
    this.conversation.addTurn(response, message);
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
    const outcome = ending.kind === "limit" ? await this.bestAnswer(ending.status, ending.why) : outcomeOf(ending);
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
    return withPassages(rankSources(collectReads(this.iterations), answer), repl.sourcePassages?.bind(repl));
  }

  /** One last request for the best answer, when turns, time or patience ran out. */
  private async bestAnswer(status: RunStatus, why: string): Promise<Outcome> {
    const turn = this.iterations.length;
    this.emit({ type: "notice", message: `${why} Asking the model for its best answer.` });
    this.emit({ type: "turn-started", turn });
    const startedAt = Date.now();
    // The run's own signal may already be aborted by the deadline: only Stop and a timeout count.
    const timeout = AbortSignal.timeout(FINAL_REQUEST_TIMEOUT_MS);
    const signal = this.o.signal ? AbortSignal.any([this.o.signal, timeout]) : timeout;
    try {
      const { result, messages } = await this.askModel(turn, FINAL_REQUEST, signal);
      const record = iterationRecord(turn, startedAt, messages, result.text);
      const answer = await this.answerFromFinalReply(turn, result.text, record);
      record.final_answer = answer || null;
      this.iterations.push(record);
      this.emit({ type: "iteration", record });
      return { answer, status, message: why };
    } catch (err) {
      if (this.o.signal?.aborted) return { answer: "", status: "stopped", message: "Stopped before the model gave its best answer." };
      return { answer: "", status, message: `${why} The final request failed too: ${err instanceof Error ? err.message : String(err)}` };
    }
  }

  private async answerFromFinalReply(turn: number, text: string, record: IterationRecord): Promise<string> {
    const found = findTextAnswer(text);
    if (found?.kind === "final") return found.value;
    if (found?.kind === "final_var") {
      const resolved = await this.resolveVariable(found.name, turn, record);
      if (resolved.final_answer) return resolved.final_answer;
    }
    return stripThinking(text).replace(/```[\s\S]*?(```|$)/g, "").trim();
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
        record: { metadata: { run_metadata: runMetadata(this.o.rootEngine, this.subEngine, this.o.config), iterations: result.iterations } },
      };
    } finally {
      child.release();
    }
  }
}

interface Outcome {
  answer: string;
  status: RunStatus;
  message?: string;
}

function outcomeOf(ending: Exclude<Ending, { kind: "limit" }>): Outcome {
  if (ending.kind === "answered") return { answer: ending.answer, status: "answered" };
  return { answer: "", status: ending.kind, message: ending.message };
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
