// What a caller hands runRlm for one question: kept apart from the loop so the pieces the loop
// is made of (child runs, Python's overlapped start) can name it without importing the loop.
import type { ChatEngine } from "../engines/types.ts";
import type { ContextInfo } from "../repl/protocol.ts";
import type { HistoryEntry, Repl } from "../repl/types.ts";
import type { FallbackAsker } from "./fallback-cost.ts";
import type { ResumeRun } from "./resume.ts";
import type { SharedRunState } from "./subcalls.ts";
import type { RlmConfig, RlmEventListener } from "./types.ts";

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
