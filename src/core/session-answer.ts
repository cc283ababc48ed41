// How the session answers a question once it is prepared: one direct call or the RLM (auto
// mode, the same choice for the page and the CLI), or more turns of an earlier run. Apart from
// RlmSession, which owns the session's life (its Python, documents, history, stopping).
import type { ChatEngine } from "../engines/types.ts";
import type { HistoryEntry, SessionRepl } from "../repl/types.ts";
import { replDocumentSource } from "./context-source.ts";
import type { DocumentSource } from "./direct.ts";
import { runDirect } from "./direct-run.ts";
import { directQuestion } from "./direct-turn.ts";
import { continueDirect, continuesDirect } from "./direct-continue.ts";
import type { FallbackAsker } from "./fallback-cost.ts";
import { runRlm, type ChildRepl, type PendingPython } from "./loop.ts";
import type { ResumeRun } from "./resume.ts";
import { chooseRunMode, type RunModeChoice } from "./run-mode.ts";
import { abortable as abortableWork } from "./stop.ts";
import type { IterationRecord, RlmConfig, RlmEventListener, RlmResult } from "./types.ts";

export interface SessionEngines {
  root: ChatEngine;
  sub: ChatEngine;
}

/** What answering needs of the session. */
export interface AnswerHost {
  repl: SessionRepl;
  /** Limits and sampling for this question. */
  config(): RlmConfig;
  /** Whether the REPL still holds the variables of the questions before (read when the run starts: a rebuild may change it). */
  variablesKept(): boolean;
  /** Whether a turn ran on the current worker (so its variables are there). */
  ranHere(turn: IterationRecord): boolean;
  /** What lets a run start child RLMs (empty when this session's runs have none). */
  childRepls: { createChildRepl?: () => Promise<ChildRepl> };
}

/** What one question's run carries through the session's steps. */
export interface RunContext {
  /** The questions and answers it follows (the session's own list, or a fresh try's copy). */
  history: HistoryEntry[];
  signal: AbortSignal;
  onEvent?: RlmEventListener;
  confirmFallback?: FallbackAsker;
  /** Aborts with `signal`, or when a time limit that counts from before the question ends while it is being prepared. */
  preparing?: AbortSignal;
}

export class Stopped extends Error {
  override name = "Stopped";
}

/** Waits for `work` unless the question is stopped first. */
export function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return abortableWork(work, signal, () => new Stopped());
}

/**
 * Auto mode: one direct call when the whole document and the question fit the root's window
 * with room to answer, the RLM otherwise (or whichever the person asked for). Owned here so
 * the page and the CLI make the same choice; the result says which was used and why.
 */
export async function answerQuestion(
  host: AnswerHost,
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
    early?.mode === "rlm" && pending ? early : await chooseMode(host.repl, question, engines.root, config, history);
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
    repl: host.repl,
    rootEngine: engines.root,
    subEngine: engines.sub,
    config,
    previous: history,
    previousVariablesKept: host.variablesKept(),
    signal,
    ...(onEvent ? { onEvent } : {}),
    ...(run.confirmFallback ? { confirmFallback: run.confirmFallback } : {}),
    ...(pending ? { pending } : {}),
    ...host.childRepls,
  });
  return { ...result, mode: { used: "rlm", reason: choice.reason } };
}

/** Runs more turns of an earlier run of `question`, its turns replayed to the model. */
export async function resumeRun(
  host: AnswerHost,
  question: string,
  earlier: ResumeRun,
  engines: SessionEngines,
  run: RunContext,
): Promise<RlmResult> {
  const { signal, onEvent } = run;
  if (continuesDirect(earlier.iterations)) {
    return continueDirect({
      question,
      previous: run.history,
      engine: engines.root,
      document: await replDocumentSource(host.repl),
      config: host.config(),
      iterations: earlier.iterations,
      signal,
      ...(onEvent ? { onEvent } : {}),
    });
  }
  const last = earlier.iterations.at(-1);
  const variablesKept = !!last && host.ranHere(last);
  if (!variablesKept)
    onEvent?.({
      type: "notice",
      message: "Python was restarted since this run: its variables are gone, so the model continues without them.",
      depth: 0,
    });
  const result = await runRlm({
    question,
    repl: host.repl,
    rootEngine: engines.root,
    subEngine: engines.sub,
    config: host.config(),
    previous: run.history,
    previousVariablesKept: host.variablesKept(),
    resume: { iterations: earlier.iterations, variablesKept },
    signal,
    ...(onEvent ? { onEvent } : {}),
    ...(run.confirmFallback ? { confirmFallback: run.confirmFallback } : {}),
    ...host.childRepls,
  });
  return { ...result, mode: { used: "rlm", reason: "continuing an earlier run" } };
}

/** The run mode; for "direct", the document to read. Most documents are decided by size alone. */
async function chooseMode(
  repl: SessionRepl,
  question: string,
  root: ChatEngine,
  config: RlmConfig,
  history: readonly HistoryEntry[],
): Promise<RunModeChoice & { document?: DocumentSource }> {
  const requested = config.runMode ?? "auto";
  const asked = directQuestion(question, history).length;
  const answerTokens = config.maxTokensPerTurn;
  const bySize = chooseRunMode(repl.contextInfo?.total_chars ?? 0, asked, root.contextWindow, requested, answerTokens);
  if (bySize.mode === "rlm") return bySize;
  // Close enough to fit: measure the text the direct prompt would hold (paths included).
  const document = await replDocumentSource(repl);
  const exact = chooseRunMode(document.totalChars, asked, root.contextWindow, requested, answerTokens);
  return exact.mode === "direct" ? { ...exact, document } : exact;
}
