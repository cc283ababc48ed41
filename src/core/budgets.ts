// Every limit that depends on model size is derived here from the root and sub windows, so a
// 4,096-token WebLLM model and a 128K-token server model each get budgets that fit them.
import { CHARS_PER_TOKEN } from "../engines/tokens.ts";

export interface BudgetInput {
  rootWindow: number;
  subWindow: number;
  /** User override for tokens the root model may write per turn. */
  maxTokensPerTurn?: number;
  /** User override for tokens a sub-call may write. */
  subMaxTokens?: number;
  /** User override for characters of REPL output shown per cell. */
  outputCharsPerCell?: number;
}

export interface Budgets {
  rootWindow: number;
  subWindow: number;
  maxTokensPerTurn: number;
  /** Tokens the root conversation may occupy before old turns are dropped. */
  historyTokens: number;
  /** Characters of one cell's stdout+stderr shown to the root model. */
  outputCharsPerCell: number;
  subMaxTokens: number;
  /** The longest prompt (characters) a sub-call may carry. */
  subPromptChars: number;
  /** The chunk size suggested to the model for splitting `context`. */
  chunkChars: number;
  /** The longest question kept verbatim in the first message. */
  questionChars: number;
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
const SAFETY_TOKENS = 64;

export function deriveBudgets(input: BudgetInput): Budgets {
  const rootWindow = Math.max(1024, Math.floor(input.rootWindow));
  const subWindow = Math.max(1024, Math.floor(input.subWindow));
  // A limit the person set is kept, however small (it was raised to 128 without a word); only
  // half the window bounds it, so the prompt keeps room. The derived default keeps its floor.
  const maxTokensPerTurn =
    input.maxTokensPerTurn !== undefined
      ? clamp(Math.floor(input.maxTokensPerTurn), 1, Math.floor(rootWindow / 2))
      : clamp(Math.floor(rootWindow * 0.25), 128, rootWindow / 2);
  const historyTokens = rootWindow - maxTokensPerTurn - SAFETY_TOKENS;
  const outputCharsPerCell = clamp(Math.floor(input.outputCharsPerCell ?? rootWindow * CHARS_PER_TOKEN * 0.15), 500, 20_000);
  const subMaxTokens = clamp(Math.floor(input.subMaxTokens ?? subWindow * 0.25), 64, subWindow / 2);
  const subPromptChars = Math.floor((subWindow - subMaxTokens - SAFETY_TOKENS) * CHARS_PER_TOKEN);
  // Leave a fifth of the prompt for the instruction the model wraps around each chunk.
  const chunkChars = Math.max(1000, Math.floor((subPromptChars * 0.8) / 500) * 500);
  const questionChars = Math.floor(rootWindow * CHARS_PER_TOKEN * 0.2);
  return {
    rootWindow,
    subWindow,
    maxTokensPerTurn,
    historyTokens,
    outputCharsPerCell,
    subMaxTokens,
    subPromptChars,
    chunkChars,
    questionChars,
  };
}
