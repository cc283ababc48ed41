// The evaluation runner: every task answered by "vanilla" (one call, document cut to the
// window) and by "rlm" (the recursive loop over a REPL), same model, same tasks. Results are
// appended one line at a time, so an interrupted run resumes where it stopped. No Node or DOM
// imports: the REPL and the result store come in as parameters.
//
// The RLM method asks an RlmSession, as the page and the command line do: one session for the
// whole run, started over on each task's documents (a fresh namespace, no history), with RLM
// mode and no child RLMs, as the loop was always measured here. Its time is the run's own, from
// the moment the session hands the question to the loop (its "run-mode" event): Python's start
// and the documents' loading are not the method's. Vanilla is the model alone, without the
// harness: core's direct answer (vanilla.ts), which needs no session and no Python.
import { EngineAbortedError } from "../engines/errors.ts";
import type { ChatEngine } from "../engines/types.ts";
import { RlmSession, type SessionDocument } from "../core/session.ts";
import { DEFAULT_CONFIG, type RlmConfig, type RlmEvent, type RlmResult } from "../core/types.ts";
import { totalTokens } from "../core/usage.ts";
import type { ContextDocumentInput, ContextInfo, ContextShape } from "../repl/protocol.ts";
import type { Repl, SessionRepl } from "../repl/types.ts";
import { latestResults, resultKey, type ResultStore } from "./results.ts";
import { expectedText, scoreAnswer } from "./scoring.ts";
import { BENCH_METHODS, type BenchMethod, type BenchResult, type BenchStatus, type BenchTask, type TaskSpec } from "./types.ts";
import { answerDirectly, type VanillaOptions } from "./vanilla.ts";

/** What loadTaskContext needs from a REPL: the loop's interface plus loading and resetting. */
export interface BenchRepl extends Repl {
  resetNamespace(): Promise<void>;
  loadDocuments(docs: ContextDocumentInput[], shape?: ContextShape): Promise<ContextInfo>;
  close?(): void;
}

export type BenchProgress =
  | { type: "planned"; total: number; alreadyDone: number }
  | { type: "task-started"; taskId: string; method: BenchMethod; done: number; total: number }
  | { type: "task-finished"; result: BenchResult; done: number; total: number }
  | { type: "finished"; done: number; total: number; stopped: boolean };

export interface BenchRunOptions {
  tasks: readonly TaskSpec[];
  /** Default: both, vanilla first. */
  methods?: readonly BenchMethod[];
  rootEngine: ChatEngine;
  subEngine?: ChatEngine;
  /** A REPL to reuse across tasks (the runner's session resets it for each task); the caller closes it. */
  repl?: SessionRepl;
  /** Called once, lazily, when an RLM task needs a REPL and none was given; closed at the end. */
  createRepl?: () => SessionRepl | Promise<SessionRepl>;
  /** Overrides of the RLM loop's settings. */
  config?: Partial<RlmConfig>;
  vanilla?: Omit<VanillaOptions, "signal">;
  store: ResultStore;
  /** Re-run task × method pairs whose stored status is "error" (default true). */
  retryErrors?: boolean;
  signal?: AbortSignal;
  onProgress?: (progress: BenchProgress) => void;
  /** Live events of the RLM loop (for a UI showing the current task's steps). */
  onRlmEvent?: (taskId: string, event: RlmEvent) => void;
  /** Every finished RLM run, e.g. to save its trajectory. */
  onRlmResult?: (task: BenchTask, result: RlmResult) => void | Promise<void>;
}

export interface BenchRunOutcome {
  /** One result per task × method (stored ones included), latest first wins. */
  results: BenchResult[];
  /** Task × method pairs run now. */
  ran: number;
  /** Pairs skipped because the store already had them. */
  skipped: number;
  /** True when the signal stopped the run before every pair was done. */
  stopped: boolean;
}

export class BenchModelMismatchError extends Error {
  override name = "BenchModelMismatchError";
  constructor(stored: string, current: string) {
    super(
      `The results file already holds results of the model "${stored}", but this run uses "${current}". ` +
        "Write to another results file (or delete this one) so two models' scores do not mix.",
    );
  }
}

export class MissingReplError extends Error {
  override name = "MissingReplError";
  constructor() {
    super("The rlm method needs a REPL: pass `repl` or `createRepl` to runBench (in Node, createNodeRepl()).");
  }
}

class Stopped extends Error {
  override name = "Stopped";
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * A task's context as documents and the shape `context` takes: a str, or a dict path -> text for
 * a repository. Blobs, not strings: the worker decodes bytes itself, so a large document is not
 * cloned as a JS string.
 */
export function taskDocuments(task: BenchTask): { docs: Array<{ path: string; data: Blob }>; shape: ContextShape } {
  const context = task.context;
  if (context.kind === "text") return { docs: [{ path: "document.txt", data: new Blob([context.text]) }], shape: "str" };
  const docs = Object.keys(context.files)
    .sort()
    .map((path) => ({ path, data: new Blob([context.files[path]!]) }));
  return { docs, shape: "dict" };
}

/** Puts a task's context into a bare REPL as `context` (for tests and benchmarks of the REPL itself). */
export async function loadTaskContext(repl: BenchRepl, task: BenchTask): Promise<ContextInfo> {
  await repl.resetNamespace();
  const { docs, shape } = taskDocuments(task);
  const info = await repl.loadDocuments(
    docs.map((d) => ({ name: d.path, data: d.data })),
    shape,
  );
  await repl.beginQuestion([]);
  return info;
}

/**
 * The caller's REPL, lent to the runner's session: closing the session leaves it running for the
 * caller, and what the session asked to hear of a rebuilt worker stops with the session.
 */
function lent(repl: SessionRepl): SessionRepl {
  let open = true;
  return new Proxy(repl, {
    get(target, key) {
      if (key === "close") return () => void (open = false);
      if (key === "onRebuilt")
        return (listener: Parameters<SessionRepl["onRebuilt"]>[0]) => target.onRebuilt((fresh) => (open ? listener(fresh) : undefined));
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

export async function runBench(options: BenchRunOptions): Promise<BenchRunOutcome> {
  const methods = options.methods ?? BENCH_METHODS;
  const retryErrors = options.retryErrors ?? true;
  const model = options.rootEngine.model;
  const config: RlmConfig = { ...DEFAULT_CONFIG, ...options.config };

  const stored = await options.store.load();
  const other = stored.find((r) => r.model !== model);
  if (other) throw new BenchModelMismatchError(other.model, model);
  const done = new Set(
    latestResults(stored)
      .filter((r) => !(retryErrors && r.status === "error"))
      .map((r) => resultKey(r.taskId, r.method)),
  );
  const fresh: BenchResult[] = [];
  const total = options.tasks.length * methods.length;
  let skipped = 0;
  for (const spec of options.tasks) for (const m of methods) if (done.has(resultKey(spec.id, m))) skipped++;
  /** Pairs done, stored ones included: what a progress bar shows. */
  let finished = skipped;
  options.onProgress?.({ type: "planned", total, alreadyDone: skipped });

  let session: RlmSession | null = null;
  const getSession = async (): Promise<RlmSession> => {
    if (session) return session;
    if (!options.repl && !options.createRepl) throw new MissingReplError();
    const repl = options.repl ? lent(options.repl) : await options.createRepl!();
    const sub = options.subEngine ?? options.rootEngine;
    session = new RlmSession({
      createRepl: () => repl,
      engines: () => ({ root: options.rootEngine, sub }),
      // The loop, whatever auto mode would choose: the direct answer is the other method.
      config: () => ({ ...config, runMode: "rlm" }),
      childRlms: false,
    });
    return session;
  };

  const base = (task: BenchTask, method: BenchMethod) => ({
    taskId: task.id,
    suite: task.suite,
    size: task.size,
    variant: task.variant,
    seed: task.seed,
    method,
    model,
    expected: expectedText(task.expected),
    contextChars: task.contextChars,
    timestamp: new Date().toISOString(),
  });

  async function runVanilla(task: BenchTask): Promise<BenchResult> {
    const started = Date.now();
    try {
      const out = await answerDirectly(task, options.rootEngine, {
        // Same sampling as the RLM unless the vanilla options say otherwise.
        sampling: config.sampling,
        ...options.vanilla,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      return {
        ...base(task, "vanilla"),
        score: scoreAnswer(task.expected, out.answer),
        answer: out.answer,
        promptTokens: out.usage.promptTokens,
        completionTokens: out.usage.completionTokens,
        tokens: out.usage.promptTokens + out.usage.completionTokens,
        timeMs: Date.now() - started,
        status: "answered",
        shownChars: out.shownChars,
      };
    } catch (err) {
      if (options.signal?.aborted || err instanceof EngineAbortedError) throw new Stopped();
      return errorResult(task, "vanilla", started, err);
    }
  }

  async function runRlmMethod(task: BenchTask): Promise<BenchResult> {
    const s = await getSession();
    let started = Date.now();
    try {
      const { docs, shape } = taskDocuments(task);
      await s.startOver(docs satisfies SessionDocument[], shape);
      started = Date.now();
      const result = await s.ask(task.question, {
        ...(options.signal ? { signal: options.signal } : {}),
        onEvent: (e: RlmEvent) => {
          if (e.type === "run-mode" && e.depth === 0) started = Date.now();
          options.onRlmEvent?.(task.id, e);
        },
      });
      if (result.status === "stopped" || options.signal?.aborted) throw new Stopped();
      await options.onRlmResult?.(task, result);
      const t = totalTokens(result.usage);
      // "failed" means the loop threw (server down, bad reply): a harness error, retried on resume.
      const status: BenchStatus = result.status === "failed" ? "error" : result.status;
      return {
        ...base(task, "rlm"),
        score: scoreAnswer(task.expected, result.answer),
        answer: result.answer,
        promptTokens: t.prompt,
        completionTokens: t.completion,
        tokens: t.prompt + t.completion,
        timeMs: Date.now() - started,
        status,
        ...(result.message ? { message: result.message } : {}),
        iterations: result.iterations.length,
        subcalls: result.usage.subcalls,
      };
    } catch (err) {
      if (err instanceof Stopped || options.signal?.aborted) throw new Stopped();
      return errorResult(task, "rlm", started, err);
    }
  }

  function errorResult(task: BenchTask, method: BenchMethod, started: number, err: unknown): BenchResult {
    return {
      ...base(task, method),
      score: 0,
      answer: "",
      promptTokens: 0,
      completionTokens: 0,
      tokens: 0,
      timeMs: Date.now() - started,
      status: "error",
      message: errorText(err),
    };
  }

  let stopped = false;
  try {
    for (const spec of options.tasks) {
      const todo = methods.filter((m) => !done.has(resultKey(spec.id, m)));
      if (!todo.length) continue;
      if (options.signal?.aborted) {
        stopped = true;
        break;
      }
      // Built once for both methods, dropped after: an 8M-character document is not kept around.
      const task = spec.build();
      for (const method of todo) {
        if (options.signal?.aborted) throw new Stopped();
        options.onProgress?.({ type: "task-started", taskId: task.id, method, done: finished, total });
        const result = method === "vanilla" ? await runVanilla(task) : await runRlmMethod(task);
        await options.store.append(result);
        fresh.push(result);
        finished++;
        options.onProgress?.({ type: "task-finished", result, done: finished, total });
      }
    }
  } catch (err) {
    if (!(err instanceof Stopped)) throw err;
    stopped = true;
  } finally {
    (session as RlmSession | null)?.close();
  }
  options.onProgress?.({ type: "finished", done: finished, total, stopped });
  return { results: latestResults([...stored, ...fresh]), ran: fresh.length, skipped, stopped };
}
