// Python's llm_query / rlm_query calls come back to the host here: each is admitted against the
// run's shared budget, sent to the right engine (or a child RLM), recorded under the cell that
// made it, and shown as it starts and ends. A failure becomes an "Error: ..." string for Python,
// never an exception, so one bad prompt cannot break a batch.
import { EngineAbortedError } from "../engines/errors.ts";
import { Limiter } from "../engines/limiter.ts";
import { estimateTokens } from "../engines/tokens.ts";
import type { ChatEngine, ChatUsage } from "../engines/types.ts";
import type { SourceRange, SubcallRequest } from "../repl/protocol.ts";
import type { Budgets } from "./budgets.ts";
import { stripThinking } from "./parse.ts";
import { subcallRecord } from "./records.ts";
import type { StopSignal } from "./stop.ts";
import type { RlmConfig, RlmEvent, SubcallRecord } from "./types.ts";
import { UsageTracker } from "./usage.ts";

/** An event as a run writes it; the run adds its depth and parent sub-call. */
type Undepthed<E> = E extends unknown ? Omit<E, "depth" | "parentSubcallId"> : never;
export type Emit = (event: Undepthed<RlmEvent>) => void;

/** What a question's root run and all its children share: one budget, one clock. */
export interface SharedRunState {
  usage: UsageTracker;
  subcallsUsed: number;
  deadline: number;
  limiter: Limiter;
  /** Child RLMs take turns on the one child REPL. */
  childLock: Limiter;
  nextId: () => string;
}

export function newSharedRunState(config: RlmConfig, subEngine: ChatEngine): SharedRunState {
  let n = 0;
  return {
    usage: new UsageTracker(),
    subcallsUsed: 0,
    deadline: Date.now() + config.maxWallTimeMs,
    limiter: new Limiter(Math.max(1, Math.min(config.maxConcurrentSubcalls, subEngine.maxConcurrency))),
    childLock: new Limiter(1),
    nextId: () => `s${++n}`,
  };
}

/** The cell whose code is running: sub-calls are recorded under it. */
export interface CellSlot {
  turn: number;
  cell: number;
  records: SubcallRecord[];
}

/** Runs a child RLM on `prompt`; provided by the loop when depth allows. */
export type ChildRunner = (prompt: string, id: string) => Promise<{ text: string; record: Partial<SubcallRecord> }>;

export interface SubcallRouterOptions {
  rootEngine: ChatEngine;
  subEngine: ChatEngine;
  config: RlmConfig;
  budgets: Budgets;
  shared: SharedRunState;
  stop: StopSignal;
  emit: Emit;
  /** Absent when rlm_query must be a plain sub-call (depth limit, no child REPLs). */
  childRun?: ChildRunner;
}

class SubcallRefused extends Error {
  override name = "SubcallRefused";
}

interface Reply {
  text: string;
  usage: ChatUsage;
  record: Partial<SubcallRecord>;
}

export class SubcallRouter {
  current: CellSlot | null = null;

  constructor(private readonly o: SubcallRouterOptions) {}

  /** The REPL's sub-call handler: one reply per prompt, in order. */
  readonly handle = (request: SubcallRequest): Promise<string[]> =>
    Promise.all(request.prompts.map((p, i) => this.one(request.kind, p, request.model, request.sources?.[i] ?? [])));

  private async one(kind: "llm" | "rlm", prompt: string, model: string | null, sources: SourceRange[]): Promise<string> {
    const cell = this.current;
    const refusal = this.admit();
    if (refusal) return refusal;
    const id = this.o.shared.nextId();
    const useChild = kind === "rlm" && this.o.childRun !== undefined;
    const label = useChild ? `rlm(${this.o.rootEngine.model})` : this.labelFor(model);
    const quoted = sources.length ? { sources } : {};
    this.o.emit({ type: "subcall-started", id, turn: cell?.turn ?? -1, cell: cell?.cell ?? -1, kind, prompt, model: label, ...quoted });
    const started = Date.now();
    let reply: Reply;
    let error: string | undefined;
    try {
      reply = useChild ? await this.child(prompt, id) : await this.plain(prompt, model);
    } catch (err) {
      if (this.o.stop.reason || err instanceof EngineAbortedError) throw err;
      error = err instanceof Error ? err.message : String(err);
      reply = { text: `Error: ${error}`, usage: { promptTokens: 0, completionTokens: 0 }, record: {} };
    }
    const ms = Date.now() - started;
    this.o.shared.usage.addTime("subcallMs", ms);
    cell?.records.push(subcallRecord(label, prompt, reply.text, reply.usage, ms, { ...(error ? { error } : {}), ...quoted, ...reply.record }));
    this.o.emit({ type: "subcall-finished", id, response: reply.text, ...(error ? { error } : {}), usage: reply.usage, durationMs: ms });
    return reply.text;
  }

  /** An "Error: ..." reply when the call may not run, else null (and the call is counted). */
  private admit(): string | null {
    const { shared, config } = this.o;
    if (this.o.stop.reason) return "Error: the run was stopped";
    if (shared.subcallsUsed >= config.maxSubcalls) {
      return `Error: the sub-call budget is used up (${config.maxSubcalls} of ${config.maxSubcalls}). Answer with what you have.`;
    }
    shared.subcallsUsed += 1;
    return null;
  }

  private engineFor(model: string | null): { engine: ChatEngine; override?: string } {
    const { rootEngine, subEngine } = this.o;
    if (!model || model === subEngine.model) return { engine: subEngine };
    if (model === rootEngine.model) return { engine: rootEngine };
    return { engine: subEngine, override: model };
  }

  private labelFor(model: string | null): string {
    const { engine, override } = this.engineFor(model);
    return override ?? engine.model;
  }

  private async plain(prompt: string, model: string | null): Promise<Reply> {
    const { engine, override } = this.engineFor(model);
    const { budgets, config, shared } = this.o;
    const promptTokens = estimateTokens(prompt);
    if (promptTokens + budgets.subMaxTokens > engine.contextWindow) {
      throw new SubcallRefused(
        `the prompt is about ${promptTokens.toLocaleString("en-US")} tokens but the helper model reads at most ` +
          `${(engine.contextWindow - budgets.subMaxTokens).toLocaleString("en-US")}. ` +
          `Split it into pieces of at most ${budgets.chunkChars.toLocaleString("en-US")} characters.`,
      );
    }
    const request = {
      messages: [{ role: "user" as const, content: prompt }],
      maxTokens: budgets.subMaxTokens,
      ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
      ...(config.topP !== undefined ? { topP: config.topP } : {}),
      ...(config.seed !== undefined ? { seed: config.seed } : {}),
      ...(override ? { model: override } : {}),
    };
    const result = await shared.limiter.run(() => engine.complete(request, { signal: this.o.stop.signal }));
    shared.usage.addCall(result.model || engine.model, result.usage, "sub");
    return { text: stripThinking(result.text).trim(), usage: result.usage, record: {} };
  }

  private async child(prompt: string, id: string): Promise<Reply> {
    const out = await this.o.childRun!(prompt, id);
    return { text: out.text, usage: { promptTokens: 0, completionTokens: 0 }, record: out.record };
  }
}
