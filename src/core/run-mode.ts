// Auto mode (issue 13; small-models.md "bypass for small inputs"): when the whole document and
// the question fit the root's window with room for the answer, one direct call beats the RLM
// loop (RTF: without the bypass small contexts show negative savings); otherwise the RLM reads
// it. The person can always insist on either; the result says which was used and why.
import { CHARS_PER_TOKEN, estimateMessagesTokens } from "../engines/tokens.ts";
import { deriveBudgets } from "./budgets.ts";
import { vanillaMessages } from "./direct.ts";
import { groupDigits } from "./numbers.ts";

export type RunModeRequest = "auto" | "rlm" | "direct";
export const RUN_MODE_CHOICES: readonly RunModeRequest[] = ["auto", "rlm", "direct"];

export interface RunModeChoice {
  mode: "direct" | "rlm";
  /** In words, for the answer's "how it was answered" line. */
  reason: string;
  /** Tokens the direct prompt plus its answer would need. */
  neededTokens: number;
  windowTokens: number;
}

/** The tokens a direct answer may use: the RLM's per-turn budget (--max-tokens, if given) for this window. */
export function directAnswerTokens(rootWindow: number, maxTokensPerTurn?: number): number {
  return deriveBudgets({ rootWindow, subWindow: rootWindow, ...(maxTokensPerTurn !== undefined ? { maxTokensPerTurn } : {}) })
    .maxTokensPerTurn;
}

/** Room kept for the chat template's own tokens and the estimate's error. */
const SAFETY_TOKENS = 64;
/** The note and markers the direct prompt may add around the document. */
const DIRECT_EXTRA_TOKENS = 40;

/**
 * "direct" when the document and question fit `rootWindow` with the RLM's per-turn answer
 * budget to spare; "rlm" otherwise. `requested` other than "auto" wins.
 */
export function chooseRunMode(
  contextChars: number,
  questionChars: number,
  rootWindow: number,
  requested: RunModeRequest = "auto",
  maxTokensPerTurn?: number,
): RunModeChoice {
  const answerTokens = directAnswerTokens(rootWindow, maxTokensPerTurn);
  const emptyPrompt = estimateMessagesTokens(vanillaMessages("", { text: "", shownChars: 0, note: "" }));
  const neededTokens =
    emptyPrompt +
    Math.ceil((Math.max(0, contextChars) + Math.max(0, questionChars)) / CHARS_PER_TOKEN) +
    DIRECT_EXTRA_TOKENS +
    answerTokens +
    SAFETY_TOKENS;
  const base = { neededTokens, windowTokens: rootWindow };
  const fits = neededTokens <= rootWindow;
  if (requested === "rlm") return { ...base, mode: "rlm", reason: "RLM was asked for" };
  if (requested === "direct") {
    return {
      ...base,
      mode: "direct",
      reason: fits ? "direct answer was asked for" : "direct answer was asked for; the document will be cut to fit",
    };
  }
  const size = `about ${groupDigits(neededTokens)} of the model's ${groupDigits(rootWindow)} tokens`;
  return fits
    ? { ...base, mode: "direct", reason: `the whole document and question fit the window (${size}), so it was answered in one call` }
    : { ...base, mode: "rlm", reason: `the document does not fit the window (it needs ${size}), so the RLM read it` };
}
