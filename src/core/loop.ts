// The recursive loop for one question: ask the root model for a step, run its code in the
// REPL, show it a bounded summary, repeat until it submits an answer or a budget ends. Sub-calls
// made by Python come back through here, so every one is counted, recorded and shown.
import { ContextWindowExceededError, EngineAbortedError } from "../engines/errors.ts";
import { Limiter } from "../engines/limiter.ts";
import { estimateTokens } from "../engines/tokens.ts";
import type { ChatEngine, ChatMessage, ChatResult, ChatUsage } from "../engines/types.ts";
import type { CellResult, SubcallRequest } from "../repl/protocol.ts";
import type { HistoryEntry, Repl } from "../repl/types.ts";
import { deriveBudgets, type Budgets } from "./budgets.ts";
import { RootConversation } from "./conversation.ts";
import { formatTurnOutput } from "./format.ts";
import { findCodeBlocks, findTextAnswer, stripThinking } from "./parse.ts";
import {
  FINAL_REQUEST,
  NO_CODE_MESSAGE,
  PREMATURE_FINAL_NOTE,
  firstUserMessage,
  systemPrompt,
  turnFooter,
} from "./prompts.ts";
import { runMetadata } from "./trajectory.ts";
import type {
  CodeBlockRecord,
  IterationRecord,
  RlmConfig,
  RlmEvent,
  RlmEventListener,
  RlmResult,
  RunStatus,
  SubcallRecord,
} from "./types.ts";
import { UsageTracker } from "./usage.ts";

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

/** What a question's root run and all its children share: one budget, one clock. */
interface SharedRunState {
  usage: UsageTracker;
  subcallsUsed: number;
  deadline: number;
  limiter: Limiter;
  childLock: Limiter;
  nextId: () => string;
}

const FINAL_REQUEST_TIMEOUT_MS = 120_000;

class StopSignal {
  /** Why the run must stop, once it must. */
  reason: "user" | "timeout" | null = null;
  private controller = new AbortController();

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  trip(reason: "user" | "timeout"): void {
    if (this.reason) return;
    this.reason = reason;
    this.controller.abort();
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export async function runRlm(options: RlmRunOptions): Promise<RlmResult> {
  const { repl, rootEngine, config, question } = options;
  const subEngine = options.subEngine ?? rootEngine;
  const depth = options.internal?.depth ?? 0;
  const shared: SharedRunState = options.internal?.shared ?? {
    usage: new UsageTracker(),
    subcallsUsed: 0,
    deadline: Date.now() + config.maxWallTimeMs,
    limiter: new Limiter(Math.max(1, Math.min(config.maxConcurrentSubcalls, subEngine.maxConcurrency))),
    childLock: new Limiter(1),
    nextId: (() => {
      let n = 0;
      return () => `s${++n}`;
    })(),
  };
  const budgets: Budgets = deriveBudgets({
    rootWindow: rootEngine.contextWindow,
    subWindow: subEngine.contextWindow,
    ...(config.maxTokensPerTurn !== undefined ? { maxTokensPerTurn: config.maxTokensPerTurn } : {}),
    ...(config.subMaxTokens !== undefined ? { subMaxTokens: config.subMaxTokens } : {}),
    ...(config.outputCharsPerCell !== undefined ? { outputCharsPerCell: config.outputCharsPerCell } : {}),
  });
  const recursive = depth + 1 < config.maxDepth && options.createChildRepl !== undefined;
  const parentSubcallId = options.internal?.parentSubcallId;
  const emit = (event: RlmEvent | Omit<RlmEvent, "depth">) => {
    const full = { ...event, depth, ...(parentSubcallId ? { parentSubcallId } : {}) } as RlmEvent;
    try {
      options.onEvent?.(full);
    } catch {
      // A broken listener must not break the run.
    }
  };

  const stop = new StopSignal();
  const onUserAbort = () => {
    stop.trip("user");
    repl.interrupt();
  };
  if (options.signal?.aborted) onUserAbort();
  options.signal?.addEventListener("abort", onUserAbort);
  const deadlineTimer = setTimeout(
    () => {
      stop.trip("timeout");
      repl.interrupt();
    },
    Math.max(0, shared.deadline - Date.now()),
  );

  const conversation = new RootConversation(
    systemPrompt({ budgets, recursive }),
    firstUserMessage({
      question,
      context: repl.contextInfo,
      previous: options.previous ?? [],
      budgets,
      ...(options.previousVariablesKept === false ? { previousVariablesKept: false } : {}),
    }),
    budgets.historyTokens,
  );
  const iterations: IterationRecord[] = [];
  let currentCell: { turn: number; cell: number; records: SubcallRecord[] } | null = null;

  // --- sub-calls --------------------------------------------------------------------------

  const engineFor = (model: string | null): { engine: ChatEngine; override?: string } => {
    if (!model || model === subEngine.model) return { engine: subEngine };
    if (model === rootEngine.model) return { engine: rootEngine };
    return { engine: subEngine, override: model };
  };

  async function plainSubcall(prompt: string, model: string | null): Promise<{ text: string; usage: ChatUsage; model: string }> {
    const { engine, override } = engineFor(model);
    const promptTokens = estimateTokens(prompt);
    if (promptTokens + budgets.subMaxTokens > engine.contextWindow) {
      throw new SubcallRefused(
        `the prompt is about ${promptTokens.toLocaleString("en-US")} tokens but the helper model reads at most ` +
          `${(engine.contextWindow - budgets.subMaxTokens).toLocaleString("en-US")}. ` +
          `Split it into pieces of at most ${budgets.chunkChars.toLocaleString("en-US")} characters.`,
      );
    }
    const result = await shared.limiter.run(() =>
      engine.complete(
        {
          messages: [{ role: "user", content: prompt }],
          maxTokens: budgets.subMaxTokens,
          ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
          ...(config.topP !== undefined ? { topP: config.topP } : {}),
          ...(config.seed !== undefined ? { seed: config.seed } : {}),
          ...(override ? { model: override } : {}),
        },
        { signal: stop.signal },
      ),
    );
    shared.usage.addCall(result.model || engine.model, result.usage, "sub");
    return { text: stripThinking(result.text).trim(), usage: result.usage, model: result.model || engine.model };
  }

  async function childRun(prompt: string, id: string): Promise<{ text: string; record: Partial<SubcallRecord> }> {
    return shared.childLock.run(async () => {
      const child = await options.createChildRepl!();
      try {
        await child.repl.resetNamespace();
        await child.repl.setContextText(prompt);
        await child.repl.beginQuestion([]);
        const childQuestion =
          prompt.length <= 1000 ? prompt : `${prompt.slice(0, 1000)} … [the full task is in \`context\`]`;
        const result = await runRlm({
          ...options,
          question: childQuestion,
          repl: child.repl,
          previous: [],
          signal: stop.signal,
          internal: { depth: depth + 1, shared, parentSubcallId: id },
        });
        const text =
          result.answer ||
          `Error: the child RLM ended without an answer (${result.status}${result.message ? `: ${result.message}` : ""})`;
        return {
          text,
          record: {
            metadata: { run_metadata: runMetadata(rootEngine, subEngine, config), iterations: result.iterations },
          },
        };
      } finally {
        child.release();
      }
    });
  }

  async function oneSubcall(kind: "llm" | "rlm", prompt: string, model: string | null): Promise<string> {
    const cell = currentCell;
    if (stop.reason) return "Error: the run was stopped";
    if (shared.subcallsUsed >= config.maxSubcalls) {
      return `Error: the sub-call budget is used up (${config.maxSubcalls} of ${config.maxSubcalls}). Answer with what you have.`;
    }
    shared.subcallsUsed += 1;
    const id = shared.nextId();
    const useChild = kind === "rlm" && recursive;
    const label = useChild ? `rlm(${rootEngine.model})` : engineFor(model).override ?? engineFor(model).engine.model;
    emit({ type: "subcall-started", id, turn: cell?.turn ?? -1, cell: cell?.cell ?? -1, kind, prompt, model: label });
    const started = Date.now();
    let response: string;
    let usage: ChatUsage = { promptTokens: 0, completionTokens: 0 };
    let error: string | undefined;
    let extra: Partial<SubcallRecord> = {};
    try {
      if (useChild) {
        const out = await childRun(prompt, id);
        response = out.text;
        extra = out.record;
      } else {
        const out = await plainSubcall(prompt, model);
        response = out.text;
        usage = out.usage;
      }
    } catch (err) {
      if (stop.reason || err instanceof EngineAbortedError) throw err;
      error = errorText(err);
      response = `Error: ${error}`;
    }
    const ms = Date.now() - started;
    shared.usage.addTime("subcallMs", ms);
    const record: SubcallRecord = {
      root_model: label,
      prompt,
      response,
      usage_summary: {
        model_usage_summaries: {
          [label]: { total_calls: 1, total_input_tokens: usage.promptTokens, total_output_tokens: usage.completionTokens },
        },
      },
      execution_time: ms / 1000,
      prompt_tokens: usage.promptTokens,
      completion_tokens: usage.completionTokens,
      ...(error ? { error } : {}),
      ...extra,
    };
    cell?.records.push(record);
    emit({ type: "subcall-finished", id, response, ...(error ? { error } : {}), usage, durationMs: ms });
    return response;
  }

  repl.setSubcallHandler((request: SubcallRequest) =>
    Promise.all(request.prompts.map((p) => oneSubcall(request.kind, p, request.model))),
  );

  // --- the root model ---------------------------------------------------------------------

  async function generate(turn: number, extra: string | undefined, signal: AbortSignal): Promise<{ result: ChatResult; messages: ChatMessage[] }> {
    for (let attempt = 0; ; attempt++) {
      const dropped = conversation.fit(extra);
      if (dropped) emit({ type: "history-compacted", droppedTurns: conversation.droppedTurns });
      const messages = conversation.messages(extra);
      const started = Date.now();
      try {
        const result = await rootEngine.complete(
          {
            messages,
            maxTokens: budgets.maxTokensPerTurn,
            ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
            ...(config.topP !== undefined ? { topP: config.topP } : {}),
            ...(config.seed !== undefined ? { seed: config.seed } : {}),
          },
          { signal, onToken: (text) => emit({ type: "token", turn, text }) },
        );
        shared.usage.addTime("generationMs", Date.now() - started);
        shared.usage.addCall(result.model || rootEngine.model, result.usage, "root");
        emit({ type: "turn-finished", turn, response: result.text, usage: result.usage, durationMs: Date.now() - started });
        return { result, messages };
      } catch (err) {
        shared.usage.addTime("generationMs", Date.now() - started);
        if (err instanceof ContextWindowExceededError && attempt === 0 && conversation.shrink(extra)) {
          emit({ type: "history-compacted", droppedTurns: conversation.droppedTurns });
          continue;
        }
        throw err;
      }
    }
  }

  async function runCell(code: string, turn: number, cell: number, records: SubcallRecord[]): Promise<CellResult> {
    currentCell = { turn, cell, records };
    emit({ type: "cell-started", turn, cell, code });
    const started = Date.now();
    try {
      const result = await repl.runCell(code, { timeoutMs: config.cellTimeoutMs });
      emit({ type: "cell-finished", turn, cell, result });
      return result;
    } finally {
      shared.usage.addTime("replMs", Date.now() - started - records.reduce((s, r) => s + r.execution_time * 1000, 0));
      currentCell = null;
    }
  }

  function finish(answer: string, status: RunStatus, message?: string): RlmResult {
    const usage = shared.usage.snapshot();
    emit({ type: "answer", answer, status, ...(message ? { message } : {}), usage });
    return { answer, status, ...(message ? { message } : {}), iterations, usage };
  }

  /** Resolves FINAL_VAR(name) written as text by asking the REPL for the variable. */
  async function resolveVariable(name: string, turn: number, records: SubcallRecord[]): Promise<CellResult> {
    return runCell(`FINAL_VAR(${JSON.stringify(name)})`, turn, 0, records);
  }

  /** One last request for the best answer, when turns, time or patience ran out. */
  async function bestAnswer(status: RunStatus, why: string): Promise<RlmResult> {
    const turn = iterations.length;
    emit({ type: "notice", message: `${why} Asking the model for its best answer.` });
    emit({ type: "turn-started", turn });
    const started = Date.now();
    const signal = options.signal
      ? AbortSignal.any([options.signal, AbortSignal.timeout(FINAL_REQUEST_TIMEOUT_MS)])
      : AbortSignal.timeout(FINAL_REQUEST_TIMEOUT_MS);
    try {
      const { result, messages } = await generate(turn, FINAL_REQUEST, signal);
      let answer = "";
      const records: SubcallRecord[] = [];
      const blocks: CodeBlockRecord[] = [];
      const text = findTextAnswer(result.text);
      if (text?.kind === "final") answer = text.value;
      else if (text?.kind === "final_var") {
        const r = await resolveVariable(text.name, turn, records);
        blocks.push(blockRecord(`FINAL_VAR(${JSON.stringify(text.name)})`, r, records));
        answer = r.final_answer ?? "";
      }
      if (!answer) answer = stripThinking(result.text).replace(/```[\s\S]*?(```|$)/g, "").trim();
      const record: IterationRecord = {
        type: "iteration",
        iteration: turn + 1,
        timestamp: new Date(started).toISOString(),
        prompt: messages,
        response: result.text,
        code_blocks: blocks,
        final_answer: answer || null,
        iteration_time: null,
      };
      iterations.push(record);
      emit({ type: "iteration", record });
      return finish(answer, status, why);
    } catch (err) {
      if (options.signal?.aborted) return finish("", "stopped", "Stopped before the model gave its best answer.");
      return finish("", status, `${why} The final request failed too: ${errorText(err)}`);
    }
  }

  // --- the loop ---------------------------------------------------------------------------

  emit({ type: "run-started", question, contextChars: repl.contextInfo?.total_chars ?? 0 });
  let consecutiveErrors = 0;
  try {
    for (let turn = 0; turn < config.maxIterations; turn++) {
      if (stop.reason === "user") return finish("", "stopped", "Stopped.");
      if (stop.reason === "timeout" || Date.now() >= shared.deadline) {
        return await bestAnswer("out-of-time", `The ${Math.round(config.maxWallTimeMs / 1000)} s time limit was reached.`);
      }
      emit({ type: "turn-started", turn });
      const turnStarted = Date.now();
      let generated;
      try {
        generated = await generate(turn, undefined, stop.signal);
      } catch (err) {
        if (stop.reason === "user") return finish("", "stopped", "Stopped.");
        if (stop.reason === "timeout") {
          return await bestAnswer("out-of-time", `The ${Math.round(config.maxWallTimeMs / 1000)} s time limit was reached.`);
        }
        throw err;
      }
      const { result, messages } = generated;
      const response = result.text;
      const blocks = findCodeBlocks(response);
      const record: IterationRecord = {
        type: "iteration",
        iteration: turn + 1,
        timestamp: new Date(turnStarted).toISOString(),
        prompt: messages,
        response,
        code_blocks: [],
        final_answer: null,
        iteration_time: null,
      };
      iterations.push(record);

      const outputs: CellResult[] = [];
      const notes: string[] = [];
      let final: string | null = null;
      let raised = false;
      for (let i = 0; i < blocks.length; i++) {
        const records: SubcallRecord[] = [];
        const cellResult = await runCell(blocks[i]!, turn, i, records);
        record.code_blocks.push(blockRecord(blocks[i]!, cellResult, records));
        outputs.push(cellResult);
        if (cellResult.error && cellResult.error !== "KeyboardInterrupt") raised = true;
        if (cellResult.final_answer !== null) {
          final = cellResult.final_answer;
          break;
        }
        if (stop.reason) break;
      }
      if (final === null && !stop.reason) {
        const text = findTextAnswer(response);
        if (text && blocks.length > 0) notes.push(PREMATURE_FINAL_NOTE);
        else if (text?.kind === "final") final = text.value;
        else if (text?.kind === "final_var") {
          const records: SubcallRecord[] = [];
          const r = await resolveVariable(text.name, turn, records);
          record.code_blocks.push(blockRecord(`FINAL_VAR(${JSON.stringify(text.name)})`, r, records));
          if (r.final_answer !== null) final = r.final_answer;
          else outputs.push(r);
        }
      }
      record.final_answer = final;
      record.iteration_time = (Date.now() - turnStarted) / 1000;
      const dropped = repl.takeProtocolErrors?.() ?? [];
      if (dropped.length) {
        record.dropped_messages = dropped;
        for (const message of dropped) emit({ type: "notice", message });
      }
      emit({ type: "iteration", record });
      if (final !== null) return finish(final, "answered");
      if (stop.reason === "user") return finish("", "stopped", "Stopped.");

      consecutiveErrors = raised ? consecutiveErrors + 1 : 0;
      if (consecutiveErrors >= config.maxConsecutiveErrors) {
        conversation.addTurn(response, formatTurnOutput(outputs, budgets.outputCharsPerCell, notes, ""));
        return await bestAnswer("too-many-errors", `The code failed ${consecutiveErrors} turns in a row.`);
      }
      const footer = turn + 1 < config.maxIterations ? turnFooter(turn + 1, config.maxIterations) : "";
      const userMessage = outputs.length
        ? formatTurnOutput(outputs, budgets.outputCharsPerCell, notes, footer)
        : [NO_CODE_MESSAGE, footer].filter(Boolean).join("\n\n");
      conversation.addTurn(response, userMessage);
    }
    return await bestAnswer("out-of-iterations", `All ${config.maxIterations} turns were used.`);
  } catch (err) {
    if (stop.reason === "user" || err instanceof EngineAbortedError) return finish("", "stopped", "Stopped.");
    return finish("", "failed", errorText(err));
  } finally {
    clearTimeout(deadlineTimer);
    options.signal?.removeEventListener("abort", onUserAbort);
    repl.setSubcallHandler(null);
  }
}

class SubcallRefused extends Error {
  override name = "SubcallRefused";
}

function blockRecord(code: string, result: CellResult, records: SubcallRecord[]): CodeBlockRecord {
  return {
    code,
    result: {
      stdout: result.stdout,
      stderr: result.stderr,
      locals: result.locals,
      execution_time: result.execution_time,
      rlm_calls: records,
      final_answer: result.final_answer,
    },
  };
}
