export { runRlm, type ChildRepl, type ChildReplFactory, type RlmRunOptions } from "./loop.ts";
export {
  DocumentLoadError,
  RlmSession,
  SessionBusyError,
  type AskOptions,
  type RlmSessionDeps,
  type RlmSessionInit,
  type SessionDocument,
  type SessionEngines,
} from "./session.ts";
export { deriveBudgets, type Budgets, type BudgetInput } from "./budgets.ts";
export { findCodeBlocks, findTextAnswer, stripThinking, type TextAnswer } from "./parse.ts";
export { systemPrompt, firstUserMessage, describeContext } from "./prompts.ts";
export { RootConversation } from "./conversation.ts";
export { clipMiddle, formatCell, formatTurnOutput } from "./format.ts";
export { runMetadata, toJsonl, parseJsonl } from "./trajectory.ts";
export {
  MAX_RANKED_SOURCES,
  REASON_TEXT,
  answerOverlap,
  collectReads,
  rankSources,
  sourceLabel,
  withPassages,
  type Place,
  type RankedSource,
  type Read,
  type SourceReason,
} from "./evidence.ts";
export { UsageTracker, totalTokens } from "./usage.ts";
export { DEFAULT_CONFIG } from "./types.ts";
export type * from "./types.ts";
export {
  VANILLA_SYSTEM_PROMPT,
  WindowTooSmallError,
  answerDirectly,
  fitDocument,
  textSource,
  vanillaMessages,
  type DirectAnswer,
  type DirectAnswerOptions,
  type DocumentSource,
  type FittedDocument,
  type TruncateMode,
} from "./direct.ts";
