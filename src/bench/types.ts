// The shapes every suite, scorer and the runner agree on. A task is generated lazily from a
// spec (id, suite, size, seed) so a resumed run can skip finished work without building
// multi-megabyte documents.

export type SuiteName = "niah" | "docqa" | "oolong" | "oolong-pairs" | "code";

export const SUITE_NAMES: readonly SuiteName[] = ["niah", "docqa", "oolong", "oolong-pairs", "code"];

/** What the model reads: one long string, or a repository as path -> text (an unpacked zip). */
export type BenchContext = { kind: "text"; text: string } | { kind: "files"; files: Record<string, string> };

/** The known answer and how an output is scored against it. */
export type Expected =
  /** The gold string must appear in the output (RULER's string_match_all, word-bounded). */
  | { scorer: "contains"; answer: string }
  /** OOLONG-synth scoring (`_synth_score` in alexzhang13/rlm training/environments/oolong). */
  | { scorer: "oolong"; answer: string | number; answerType: OolongAnswerType }
  /** The last integer in the output, with partial credit 0.75^|error|. */
  | { scorer: "number"; answer: number }
  /** A file path; hedging between several paths divides the credit. */
  | { scorer: "path"; answer: string }
  /** F1 between the set of items found in the output and the gold set. */
  | { scorer: "set-f1"; answer: string[]; items: "pairs" | "paths" };

export type OolongAnswerType = "numeric" | "label" | "comparison";

export interface BenchTask {
  /** Stable across runs for the same plan: the resume key. */
  id: string;
  suite: SuiteName;
  /** The nominal context size in characters that the plan asked for (the grouping key). */
  size: number;
  /** The kind of question within the suite, e.g. "depth-50", "count", "function-file". */
  variant: string;
  seed: number;
  question: string;
  context: BenchContext;
  /** Characters actually in the context. */
  contextChars: number;
  expected: Expected;
  /** Generator facts useful in reports and tests (needle offset, label counts, ...). */
  meta?: Record<string, unknown>;
}

/** A task before its document is built. */
export interface TaskSpec {
  id: string;
  suite: SuiteName;
  size: number;
  variant: string;
  seed: number;
  build(): BenchTask;
}

export type BenchMethod = "vanilla" | "rlm";

export const BENCH_METHODS: readonly BenchMethod[] = ["vanilla", "rlm"];

/**
 * What a method is called wherever a person reads it (charts, tables, the page): one word for
 * each. "vanilla" stays the key in results files and the CLI's --methods, for compatibility.
 */
export const METHOD_LABELS: Record<BenchMethod, string> = { vanilla: "Direct", rlm: "RLM" };

/**
 * How one method did on one task. "error" means the harness could not get an answer (model
 * server down, REPL crashed); the RLM's own end states are passed through.
 */
export type BenchStatus = "answered" | "out-of-iterations" | "out-of-time" | "too-many-errors" | "error";

/** One line of the results JSONL. */
export interface BenchResult {
  taskId: string;
  suite: SuiteName;
  size: number;
  variant: string;
  seed: number;
  method: BenchMethod;
  /** The root model's label. */
  model: string;
  score: number;
  answer: string;
  /** The gold answer, as text. */
  expected: string;
  promptTokens: number;
  completionTokens: number;
  tokens: number;
  timeMs: number;
  status: BenchStatus;
  message?: string;
  contextChars: number;
  /** Vanilla only: characters of the context that fit in the window. */
  shownChars?: number;
  /** RLM only. */
  iterations?: number;
  subcalls?: number;
  timestamp: string;
}
