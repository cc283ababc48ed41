// When the model cannot drive, the harness reads the document itself (issue 28): plan the
// pieces, weigh what reading them would cost, ask the person when that is above the limits,
// then read (fallback-step.ts). Apart from the loop because consent and cost are their own job:
// the loop only says why it hands over and how the run ends if the reading does not answer.
import type { ChatEngine } from "../engines/types.ts";
import { EngineAbortedError } from "../engines/errors.ts";
import type { Budgets } from "./budgets.ts";
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
import { normaliseAnswer } from "./finals.ts";
import type { RlmRunOptions } from "./run-options.ts";
import type { RunDeadline } from "./run-deadline.ts";
import { errorText, type Outcome } from "./run-ending.ts";
import { abortable, type StopSignal } from "./stop.ts";
import type { Emit, SharedRunState, SubcallRouter } from "./subcalls.ts";
import type { IterationRecord, RunStatus } from "./types.ts";

/** What the reading needs of the run it ends. */
export interface ReadingHost {
  options: Pick<RlmRunOptions, "repl" | "question" | "config">;
  /** Who is asked above the limits: only the root run asks, and only with someone to ask. */
  asker: FallbackAsker | undefined;
  subEngine: ChatEngine;
  budgets: Budgets;
  shared: SharedRunState;
  router: SubcallRouter;
  stop: StopSignal;
  emit: Emit;
  deadline: RunDeadline;
  /** The turn the reading is recorded as. */
  turn: number;
  /** "N s time limit", for the message when the time runs out during the reading. */
  timeLimit: string;
  addStep(record: IterationRecord): void;
}

/** Without a policy (the benchmark, library callers) the harness reads without asking, as it always did. */
const READ_WITHOUT_ASKING: FallbackPolicy = { mode: "always", maxCalls: Infinity, maxTokens: Infinity };

/** A fallback reading that may go ahead: its pieces, its estimate and how that was decided. */
interface AllowedReading {
  plan: FallbackPlan;
  judged: { estimate: FallbackEstimate; decision: FallbackDecision };
  concurrency: number;
}

/**
 * The harness's own bounded map-reduce over `context` (fallback.ts), as one more step — once
 * its cost is known and allowed (fallback-cost.ts: within the limits, or the person agreed).
 * `status`: how the run ended if the fallback does not answer — never "failed", which means the
 * harness itself broke (a benchmark retries those).
 */
export async function readDocumentItself(host: ReadingHost, why: string, status: RunStatus): Promise<Outcome> {
  const weighed = await weighReading(host, why, status);
  if ("answer" in weighed) return weighed;
  const { plan, judged, concurrency } = weighed;
  const { repl, question } = host.options;
  const { router, budgets, stop, emit } = host;
  const step = await fallbackStep({ turn: host.turn, why, question, repl, plan, router, budgets, concurrency, signal: stop.signal, emit });
  host.addStep(step.record);
  if (stop.reason !== null || step.error instanceof EngineAbortedError) return readingCut(host, why);
  if (!step.result) return { answer: "", status, message: `${why} The harness's own reading failed too: ${errorText(step.error)}` };
  const fallback = fallbackSummary(why, step.result, plan, judged);
  if (!step.result.answer)
    return { answer: "", status, message: `${why} The harness read the document itself and found no answer.`, fallback };
  return { answer: normaliseAnswer(step.result.answer, question), status: "answered", producedBy: "fallback", fallback };
}

/**
 * The harness's reading ended before it was done: by Stop, or by the run's time limit, which is
 * "out of time" with its reason, never "stopped" (nobody pressed Stop).
 */
function readingCut(host: ReadingHost, why: string): Outcome {
  if (host.stop.reason !== "timeout") return { answer: "", status: "stopped", message: "Stopped." };
  return {
    answer: "",
    status: "out-of-time",
    message: `${why} The harness began reading the document itself, but the ${host.timeLimit} came first.`,
  };
}

/**
 * Before anything is spent: which pieces the reading would cover, what that would cost, and
 * whether it may go ahead. An outcome when it may not (declined, never, over the limits with
 * nobody to ask, stopped, or the plan itself failed).
 */
async function weighReading(host: ReadingHost, why: string, status: RunStatus): Promise<Outcome | AllowedReading> {
  const { config, repl, question } = host.options;
  const { subEngine, budgets, shared, stop } = host;
  const concurrency = Math.max(1, Math.min(config.maxConcurrentSubcalls, subEngine.maxConcurrency));
  let plan: FallbackPlan;
  try {
    const maxChunks = fallbackChunkBudget(config.maxSubcalls - shared.subcallsUsed);
    plan = await planFallback({ repl, question, budgets, maxChunks, signal: stop.signal });
  } catch (err) {
    if (stop.reason !== null || err instanceof EngineAbortedError) return readingCut(host, why);
    return { answer: "", status, message: `${why} The harness's own reading failed too: ${errorText(err)}` };
  }
  const usage = shared.usage.snapshot();
  const endpoint = fallbackEndpoint(subEngine);
  const estimate = estimateFallback({ plan, question, budgets, usage, subModel: subEngine.model, concurrency, endpoint });
  const decision = await mayRead(host, why, estimate);
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
 * is asked. Null: stopped meanwhile. The time the person takes to answer is not the run's.
 */
async function mayRead(host: ReadingHost, why: string, estimate: FallbackEstimate): Promise<FallbackDecision | null> {
  const { asker, stop } = host;
  const policy = host.options.config.fallback ?? READ_WITHOUT_ASKING;
  const gate = gateFallback(estimate, policy, asker !== undefined);
  if (gate.action !== "ask") return gate.decision;
  const question = { reason: why, estimate, over: overLimits(estimate, policy) ?? "" };
  try {
    const agreed = await host.deadline.pausedDuring(() =>
      abortable(asker!(question, stop.signal), stop.signal, () => new EngineAbortedError()),
    );
    return agreed ? "agreed" : "declined";
  } catch (err) {
    if (stop.reason !== null || err instanceof EngineAbortedError) return null;
    throw err;
  }
}

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
