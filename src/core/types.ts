import type { ChatMessage, ChatUsage } from "../engines/types.ts";
import type { CellResult, SourceRange } from "../repl/protocol.ts";
import type { RankedSource } from "./evidence.ts";
import type { FallbackDecision, FallbackPolicy } from "./fallback-cost.ts";
import type { PromptChoice } from "./profiles/types.ts";
import type { RunModeRequest } from "./run-mode.ts";
import type { Sampling } from "./sampling.ts";

export interface RlmConfig {
  /** Root model turns before the loop asks for its best answer. */
  maxIterations: number;
  /** 1: rlm_query is a plain sub-call. 2: rlm_query starts one level of child RLMs. */
  maxDepth: number;
  /** Sub-calls (each prompt of a batch counts) per question, children included. */
  maxSubcalls: number;
  /** Wall-clock limit per question. */
  maxWallTimeMs: number;
  /**
   * When that limit's clock started (epoch ms). Absent: when the question is asked (the page).
   * `rlm` sets its own start, so reading the documents and starting Python count too.
   */
  startedAt?: number;
  /** Turns in a row whose code raised before the loop asks for its best answer. */
  maxConsecutiveErrors: number;
  /** Per-cell limit before Python is interrupted. */
  cellTimeoutMs: number;
  /** Sub-calls in flight at once (capped by the sub engine's own concurrency). */
  maxConcurrentSubcalls: number;
  maxTokensPerTurn?: number;
  subMaxTokens?: number;
  outputCharsPerCell?: number;
  /** Temperature, top-p, seed as one value (src/core/sampling.ts); absent: the engine's defaults. */
  sampling?: Sampling;
  /** Prompt profile: "auto" (default) picks one from the root model's name and window. */
  prompt?: PromptChoice;
  /** "auto" (default): answer in one direct call when the document fits the window; else RLM. */
  runMode?: RunModeRequest;
  /** Reasoning for a Qwen3-style root (default off: it would spend a small window thinking). */
  thinking?: boolean;
  /** Reasoning for sub-calls (default off). */
  subThinking?: boolean;
  /**
   * When the harness may read the document itself (the fallback): within these limits at once,
   * above them only if the person agrees (fallback-cost.ts). Absent: always, without asking (the
   * benchmark and library callers); the page and `rlm` set one.
   */
  fallback?: FallbackPolicy;
}

export const DEFAULT_CONFIG: RlmConfig = {
  maxIterations: 20,
  maxDepth: 1,
  maxSubcalls: 200,
  maxWallTimeMs: 15 * 60_000,
  maxConsecutiveErrors: 5,
  cellTimeoutMs: 60_000,
  maxConcurrentSubcalls: 4,
};

/**
 * The defaults with the settings that are set: an option left out (undefined) keeps its default
 * instead of hiding it, as a plain spread would (the command line's flags arrive this way).
 */
export function configWith(set: Partial<RlmConfig>): RlmConfig {
  const given = Object.entries(set).filter(([, value]) => value !== undefined);
  return { ...DEFAULT_CONFIG, ...(Object.fromEntries(given) as Partial<RlmConfig>) };
}

export type RunStatus = "answered" | "out-of-iterations" | "out-of-time" | "too-many-errors" | "stopped" | "failed";

export interface ModelUsage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
}

export interface UsageSummary {
  /** Per model label. */
  models: Record<string, ModelUsage>;
  rootCalls: number;
  subcalls: number;
  /** Milliseconds spent waiting for the root model, running Python, and in sub-calls. */
  generationMs: number;
  replMs: number;
  subcallMs: number;
  totalMs: number;
}

// --- trajectory (the official rlm visualizer's JSONL schema, rlm-harness.md §4) ----------

export interface SubcallRecord {
  root_model: string;
  prompt: string;
  response: string;
  usage_summary: {
    model_usage_summaries: Record<string, { total_calls: number; total_input_tokens: number; total_output_tokens: number }>;
  };
  execution_time: number;
  prompt_tokens: number;
  completion_tokens: number;
  error?: string;
  /** Ours, ignored by the visualizer: the passages of the documents the prompt quoted. */
  sources?: SourceRange[];
  /** A child RLM's own trajectory. */
  metadata?: { run_metadata: RunMetadataRecord; iterations: IterationRecord[] };
  /** Ours: answered from an identical earlier prompt of the run; no model call was made. */
  cached?: boolean;
  /** Ours: the model called rlm_query (absent: llm_query), whether or not a child run answered it. */
  kind?: "rlm";
}

export interface CodeBlockRecord {
  code: string;
  result: {
    stdout: string;
    stderr: string;
    locals: Record<string, unknown>;
    execution_time: number;
    rlm_calls: SubcallRecord[];
    final_answer: string | null;
    /** Ours, ignored by the visualizer: what the cell read of the documents. */
    sources?: SourceRange[];
    /** Ours: the exception's type name, when the cell raised one. */
    error?: string;
    /** Ours: the cell was interrupted (Stop, the watchdog, or a run cut off while it ran). */
    interrupted?: true;
  };
}

export interface IterationRecord {
  type: "iteration";
  iteration: number;
  timestamp: string;
  prompt: ChatMessage[];
  response: string;
  code_blocks: CodeBlockRecord[];
  final_answer: string | null;
  iteration_time: number | null;
  /** Ours, ignored by the visualizer: which question of the session this turn belongs to. */
  question_index?: number;
  /** Ours: messages from the REPL worker that failed validation and were dropped. */
  dropped_messages?: string[];
  /** Ours: what the harness checked or changed during this turn (an answer looked up in the document, a retry). */
  harness_notes?: string[];
  /** Ours, on a question's last iteration: the answer's ranked sources. */
  answer_sources?: RankedSource[];
  /** Ours: this step was the harness's own map-reduce, not a model turn. */
  fallback?: { reason: string; chunks_read: number; chunks_total: number; partial: boolean };
  /** Ours: this step was a direct answer (auto mode), the whole document in one prompt. */
  direct?: { shown_chars: number; total_chars: number; cut_off?: boolean; max_tokens?: number };
  /** Ours: the tokens of the model's reply this turn (read and written), as the page shows them. */
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Ours: seconds the model took to write its reply (iteration_time also counts the cells). */
  generation_time?: number;
  /** Ours: what the page shows under the turn (older turns were dropped to fit the window). */
  notices?: string[];
}

export interface RunMetadataRecord {
  type: "metadata";
  timestamp: string;
  root_model: string;
  max_depth: number;
  max_iterations: number;
  backend: string;
  backend_kwargs: Record<string, unknown>;
  environment_type: string;
  environment_kwargs: Record<string, unknown>;
  other_backends: string[] | null;
}

export interface RlmResult {
  answer: string;
  status: RunStatus;
  /** Why the run ended without an answer, in words for the user. */
  message?: string;
  iterations: IterationRecord[];
  usage: UsageSummary;
  /** The passages the answer came from, best first (root runs that read documents). */
  sources?: RankedSource[];
  /** Who wrote the answer: the root model, or the harness's fallback map-reduce. */
  producedBy?: "model" | "fallback";
  /** How the question was answered (auto mode) and why. */
  mode?: { used: "rlm" | "direct"; reason: string };
  /** When the fallback ran: why, and how much of the document it read. */
  fallback?: FallbackSummary;
  /**
   * Set when the answer stands although no output of the run showed it: the evidence gate asked
   * for support once and the model submitted the same answer again (a person should check it).
   */
  unverified?: string;
  /** Set when the answer stopped at the model's output limit (a direct answer): what happened and what to do. */
  cutOff?: string;
}

export interface FallbackSummary {
  /** Why the model could not drive the run (the diagnosis), one sentence. */
  reason: string;
  chunksRead: number;
  chunksTotal: number;
  /** True when the document had more pieces than the bound (the most relevant were read). */
  partial: boolean;
  /** What the reading was estimated to cost before anything was spent (issue 28). */
  estimate?: { calls: number; tokens: number; ms?: number; endpoint: string; local: boolean };
  /** How it was decided to read (or not): see FallbackDecision. */
  decision?: FallbackDecision;
}

// --- live events -----------------------------------------------------------------------

interface EventBase {
  /** 0 for the root run; child RLMs started by rlm_query are deeper. */
  depth: number;
  /** For events of a child run: the sub-call that started it. */
  parentSubcallId?: string;
}

export type RlmEvent = EventBase &
  (
    | { type: "run-started"; question: string; contextChars: number; profile?: { name: string; reason: string } }
    /** The session's choice between one direct call and the RLM (auto mode). */
    | { type: "run-mode"; mode: "rlm" | "direct"; reason: string }
    | { type: "turn-started"; turn: number }
    | { type: "token"; turn: number; text: string }
    | { type: "turn-finished"; turn: number; response: string; usage: ChatUsage; durationMs: number }
    | { type: "cell-started"; turn: number; cell: number; code: string }
    | { type: "cell-finished"; turn: number; cell: number; result: CellResult }
    | {
        type: "subcall-started";
        id: string;
        turn: number;
        cell: number;
        kind: "llm" | "rlm";
        prompt: string;
        model: string;
        /** The passages of the documents the prompt quotes. */
        sources?: SourceRange[];
      }
    | {
        type: "subcall-finished";
        id: string;
        response: string;
        error?: string;
        usage: ChatUsage;
        durationMs: number;
      }
    | { type: "history-compacted"; droppedTurns: number }
    /** A finished iteration's trajectory record, so a run cut off midway keeps what it did. */
    | { type: "iteration"; record: IterationRecord }
    | { type: "notice"; message: string }
    /**
     * Before the first turn: what the question waits for (the session emits these). The answer
     * itself is never an event: `RlmSession.ask` returns it, and that result is the one source.
     */
    | { type: "preparing"; step: "python" | "documents" | "model"; detail?: string }
  );

export type RlmEventListener = (event: RlmEvent) => void;
