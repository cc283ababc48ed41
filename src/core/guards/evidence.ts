// M02: premature or unverified finals. When the document is bigger than the root's window the
// model cannot know the answer before it has looked, so a final that arrives before any code
// ran, or that no output ever mentioned, is refused — once per answer ("the second attempt is
// almost always materially better"), at most twice per run. The same answer submitted again is
// the model's considered answer: it is accepted, marked as shown by no output, and never handed
// to the fallback (issue 25: the loop never loses an answer the model found).
import { CHARS_PER_TOKEN } from "../../engines/tokens.ts";
import { mentions } from "../finals.ts";

export interface EvidenceGateOptions {
  contextChars: number;
  rootWindowTokens: number;
  /** Refusals per run before every final is let through (default 2). */
  maxRefusals?: number;
  /** Answers longer than this (characters) are not looked up in outputs (lists, paragraphs). */
  maxCheckedAnswerChars?: number;
}

export interface FinalToCheck {
  answer: string;
  /** "text": FINAL written as prose; "code": submitted by a cell (FINAL(...), answer dict). */
  source: "text" | "code";
  /** For "code": the cell that submitted it (a hard-coded literal there is a guess). */
  code?: string;
}

export type EvidenceVerdict =
  /** `unsupported`: accepted although no output showed it (submitted again, or the gate stepped aside). */
  { accept: true; unsupported?: true } | { accept: false; reason: "no-code-yet" | "not-in-output"; refusalsLeft: number };

/** An answer's identity across submissions: case, spacing and quotes do not make it another. */
const answerKey = (answer: string) =>
  answer
    .toLowerCase()
    .replace(/[\s"'`*]+/g, " ")
    .trim();

export class EvidenceGate {
  private ranCode = false;
  private readonly seen: string[] = [];
  private refusals = 0;
  /** Answers refused once (by this gate, the M04 check or an extraction check): submitted again, they stand. */
  private readonly refused = new Set<string>();
  /** Answers the document itself shows verbatim (a probe found them). */
  private readonly inDocument = new Set<string>();
  readonly active: boolean;
  private readonly maxRefusals: number;
  private readonly maxChecked: number;

  constructor(options: EvidenceGateOptions) {
    // Only a document the model cannot have read whole needs evidence.
    this.active = options.contextChars > options.rootWindowTokens * CHARS_PER_TOKEN;
    this.maxRefusals = options.maxRefusals ?? 2;
    this.maxChecked = options.maxCheckedAnswerChars ?? 80;
  }

  /** Everything the model has been shown from the REPL: cell output and sub-call replies. */
  noteOutput(text: string): void {
    this.ranCode = true;
    if (text) this.seen.push(text);
    if (this.seen.length > 50) this.seen.shift();
  }

  /** What the REPL has shown the model (the latest 50 outputs), for the extraction checks. */
  get outputs(): readonly string[] {
    return this.seen;
  }

  /** An answer refused elsewhere (a FINAL written before its code's output): asked once already. */
  noteRefused(answer: string): void {
    this.refused.add(answerKey(answer));
  }

  /** Whether this answer was refused before: submitted again, it is the model's considered answer. */
  submittedBefore(answer: string): boolean {
    return this.refused.has(answerKey(answer));
  }

  /** The document itself shows this answer verbatim (issue 36 §1): it needs no printed output. */
  noteFoundInDocument(answer: string): void {
    this.inDocument.add(answerKey(answer));
  }

  /**
   * The refusal `check` would give, without counting it: the loop first looks the answer up in
   * the document (a probe costs more than this test, so it is asked only when this says no).
   */
  wouldRefuse(final: FinalToCheck): "no-code-yet" | "not-in-output" | null {
    if (!this.active) return null;
    const answer = final.answer.trim();
    const checkable = answer.length > 0 && answer.length <= this.maxChecked;
    const inOutput = checkable && this.seen.some((t) => mentions(t, answer));
    if (this.submittedBefore(answer) || this.inDocument.has(answerKey(answer))) return null;
    if (final.source === "text") return !this.ranCode ? "no-code-yet" : checkable && !inOutput ? "not-in-output" : null;
    // A cell's final is computed, unless the cell just wrote the answer in as a literal.
    const literal = checkable && final.code !== undefined && hardCoded(final.code, answer);
    return literal && !inOutput ? (this.ranCode ? "not-in-output" : "no-code-yet") : null;
  }

  /**
   * `lastChance`: the model cannot try again (its turns are over), so the allowance of refusals
   * does not apply: a new unsupported guess is refused and the harness reads the document itself
   * instead. An answer it already submitted once still stands.
   */
  check(final: FinalToCheck, options: { lastChance?: boolean } = {}): EvidenceVerdict {
    if (!this.active) return { accept: true };
    const answer = final.answer.trim();
    const checkable = answer.length > 0 && answer.length <= this.maxChecked;
    const inOutput = checkable && this.seen.some((t) => mentions(t, answer));
    const accept = (): EvidenceVerdict => (checkable && !inOutput ? { accept: true, unsupported: true } : { accept: true });
    if (this.submittedBefore(answer)) return accept();
    const reason = this.wouldRefuse(final);
    if (reason === null) return { accept: true };
    if (this.refusals >= this.maxRefusals && !options.lastChance) return accept();
    this.refusals += 1;
    this.noteRefused(answer);
    return { accept: false, reason, refusalsLeft: Math.max(0, this.maxRefusals - this.refusals) };
  }
}

/** The answer appears in the code as a literal: FINAL("4815162"), FINAL(4815162), FINAL(Paris). */
function hardCoded(code: string, answer: string): boolean {
  const literals = [...code.matchAll(/(["'])((?:\\.|(?!\1).)*)\1|\b\d[\d_.]*\b/g)].map((m) => (m[2] ?? m[0]).trim());
  const words = [...code.matchAll(/\bFINAL\(\s*([A-Za-z_]\w*)\s*\)/g)].map((m) => m[1]!);
  return [...literals, ...words].some((l) => l !== "" && l.toLowerCase() === answer.toLowerCase());
}
