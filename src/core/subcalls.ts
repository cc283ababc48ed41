// Python's llm_query / rlm_query calls come back to the host here: each is admitted against the
// run's shared budget, sent to the right engine (or a child RLM), recorded under the cell that
// made it, and shown as it starts and ends. A failure becomes an "Error: ..." string for Python,
// never an exception, so one bad prompt cannot break a batch. Plain calls go through the run's
// SubcallPolicy (window check, reply cap, thinking off, identical prompts answered once), and
// the harness's own fallback asks through `ask`, so its calls are counted and shown the same way.
import { EngineAbortedError } from "../engines/errors.ts";
import { Limiter } from "../engines/limiter.ts";
import type { ChatEngine, ChatRequest, ChatUsage } from "../engines/types.ts";
import type { SourceRange, SubcallRequest } from "../repl/protocol.ts";
import type { Budgets } from "./budgets.ts";
import { subcallRecord } from "./records.ts";
import type { StopSignal } from "./stop.ts";
import { SubcallPolicy } from "./subcall-policy.ts";
import type { RlmConfig, RlmEvent, SubcallRecord } from "./types.ts";
import { UsageTracker } from "./usage.ts";
import { samplingOf } from "./sampling.ts";

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
    deadline: (config.startedAt ?? Date.now()) + config.maxWallTimeMs,
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
  /** Sees every reply (the evidence gate counts what the model was shown). */
  observe?: (reply: string) => void;
}

const NO_USAGE: ChatUsage = { promptTokens: 0, completionTokens: 0 };

interface Reply {
  text: string;
  usage: ChatUsage;
  record: Partial<SubcallRecord>;
}

export class SubcallRouter {
  current: CellSlot | null = null;
  private readonly policy: SubcallPolicy;

  constructor(private readonly o: SubcallRouterOptions) {
    const { config } = o;
    this.policy = new SubcallPolicy({
      budgets: o.budgets,
      thinking: config.subThinking ?? false,
      ...samplingOf(config),
    });
  }

  /** The REPL's sub-call handler: one reply per prompt, in order. */
  readonly handle = (request: SubcallRequest): Promise<string[]> =>
    Promise.all(request.prompts.map((p, i) => this.one(request.kind, p, request.model, request.sources?.[i] ?? [])));

  /** A sub-call the harness makes itself (the fallback), recorded with the passages it carries. */
  readonly ask = (prompt: string, sources: readonly SourceRange[] = []): Promise<string> => this.one("llm", prompt, null, [...sources]);

  private async one(kind: "llm" | "rlm", prompt: string, model: string | null, sources: SourceRange[]): Promise<string> {
    const cell = this.current;
    const useChild = kind === "rlm" && this.o.childRun !== undefined;
    const refusal = this.admit(useChild ? null : prompt, model);
    if (refusal) return refusal;
    const id = this.o.shared.nextId();
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
      reply = { text: `Error: ${error}`, usage: NO_USAGE, record: {} };
    }
    const ms = Date.now() - started;
    this.o.shared.usage.addTime("subcallMs", ms);
    this.o.observe?.(reply.text);
    cell?.records.push(
      subcallRecord(label, prompt, reply.text, reply.usage, ms, { ...(error ? { error } : {}), ...quoted, ...reply.record }),
    );
    this.o.emit({ type: "subcall-finished", id, response: reply.text, ...(error ? { error } : {}), usage: reply.usage, durationMs: ms });
    return reply.text;
  }

  /**
   * An "Error: ..." reply when the call may not run, else null (and the call is counted). A
   * prompt already answered in this run costs nothing, so it is not counted (`prompt` null: a
   * child RLM, never remembered).
   */
  private admit(prompt: string | null, model: string | null): string | null {
    const { shared, config } = this.o;
    if (this.o.stop.reason) return "Error: the run was stopped";
    if (prompt !== null) {
      const { engine, override } = this.engineFor(model);
      if (this.policy.remembers(prompt, engine, override)) return null;
    }
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

  /** One llm_query through the policy; a prompt over the window throws SubcallTooLongError. */
  private async plain(prompt: string, model: string | null): Promise<Reply> {
    const { engine, override } = this.engineFor(model);
    const { shared } = this.o;
    const send = (request: ChatRequest) =>
      shared.limiter.run(async () => {
        const result = await engine.complete(request, { signal: this.o.stop.signal });
        shared.usage.addCall(result.model || engine.model, result.usage, "sub");
        return result;
      });
    const outcome = await this.policy.run(prompt, engine, send, override);
    // A remembered answer was counted when it was first asked.
    if (outcome.cached) return { text: outcome.text, usage: NO_USAGE, record: { cached: true } };
    return { text: outcome.text, usage: outcome.result.usage, record: {} };
  }

  private async child(prompt: string, id: string): Promise<Reply> {
    const out = await this.o.childRun!(prompt, id);
    return { text: out.text, usage: { promptTokens: 0, completionTokens: 0 }, record: out.record };
  }
}
