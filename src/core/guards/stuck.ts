// M09/M10: signs that the model is stuck even though each turn differs a little (OpenAgents'
// detectors): the same error three times in a row, three turns of code that never touch
// `context`, an import of a module that is not here after being told so. The second sighting
// is a warning (the feedback names the problem and restates the task); the limit is "stuck",
// and the loop falls back.
import { READS_CONTEXT } from "../repl-vocabulary.ts";

export type StuckReason = "same-error" | "no-context" | "forbidden-import";

export interface TurnObservation {
  /** All code the turn ran. */
  code: string;
  /** Exception type of the first failing cell, or null. */
  errorType: string | null;
  /** Its message (stderr), used to tell "the same error" from a new one. */
  errorText: string;
}

export interface StuckVerdict {
  /** Time to fall back. */
  stuck: StuckReason | null;
  /** Say it now, before it becomes stuck. */
  warn: StuckReason | null;
}

export interface StuckLimits {
  sameError?: number;
  noContext?: number;
  forbiddenImport?: number;
}

/** The error without line numbers and quoted values, so "the same error" survives small edits. */
export function errorSignature(type: string, text: string): string {
  const first = text.split("\n").find((l) => l.trim().startsWith(type)) ?? text.split("\n")[0] ?? "";
  return `${type}:${first
    .replace(/line \d+/g, "line N")
    .replace(/\d+/g, "N")
    .trim()}`;
}

const IMPORT_ERRORS = new Set(["ModuleNotFoundError", "ImportError"]);

/** Code that reads the document (`context`, or the helpers that read it for you). */
export function usesContext(code: string): boolean {
  return READS_CONTEXT.test(code);
}

export class StuckDetector {
  private lastError: string | null = null;
  private sameError = 0;
  private noContext = 0;
  private imports = 0;
  private readonly limits: Required<StuckLimits>;

  constructor(limits: StuckLimits = {}) {
    this.limits = { sameError: 3, noContext: 3, forbiddenImport: 2, ...limits };
  }

  /** Call once per turn that ran code. */
  observe(turn: TurnObservation): StuckVerdict {
    const signature = turn.errorType ? errorSignature(turn.errorType, turn.errorText) : null;
    this.sameError = signature !== null && signature === this.lastError ? this.sameError + 1 : signature ? 1 : 0;
    this.lastError = signature;
    this.noContext = usesContext(turn.code) ? 0 : this.noContext + 1;
    if (turn.errorType && IMPORT_ERRORS.has(turn.errorType)) this.imports += 1;

    const over = (reason: StuckReason, n: number, limit: number): StuckVerdict | null => {
      if (n >= limit) return { stuck: reason, warn: null };
      if (n === limit - 1 && n > 0) return { stuck: null, warn: reason };
      return null;
    };
    return (
      over("forbidden-import", this.imports, this.limits.forbiddenImport) ??
      over("same-error", this.sameError, this.limits.sameError) ??
      over("no-context", this.noContext, this.limits.noContext) ?? { stuck: null, warn: null }
    );
  }
}
