export { runRlm, type ChildRepl, type RlmRunOptions } from "./loop.ts";
export {
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
export { fineTuneJsonl, parseJsonl, runMetadata, toJsonl, trajectoryJsonl, type ExportedRun } from "./trajectory.ts";
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

// --- small models (issue 13): modules the loop consults each turn -----------------------------
export {
  analyseReply,
  detectForeignProtocol,
  foreignAction,
  isEcho,
  normaliseReply,
  ROOT_STOP_SEQUENCES,
  type ForeignAction,
  type ForeignProtocol,
  type NormalisedReply,
  type ReplyAnalysis,
  type ReplyKind,
  type ReplyProblem,
} from "./reply.ts";
export { extractCodeBlocks, type BlockVerdict, type CodeBlock } from "./parse.ts";
export {
  assignmentAsCode,
  findFinalMarker,
  judgeFinalWithCode,
  mentions,
  normaliseAnswer,
  refuseFinal,
  type FinalMarker,
  type RefusedFinal,
} from "./finals.ts";
export * from "./guards/index.ts";
export * as feedback from "./feedback.ts";
export { ALLOWED_IMPORTS, type TaskFacts } from "./feedback.ts";
export {
  PROMPT_PROFILES,
  PROMPT_CHOICES,
  chooseProfile,
  modelSizeB,
  type PromptChoice,
  type PromptProfile,
  type PromptProfileName,
  type ProfileChoice,
} from "./profiles/index.ts";
export {
  configureHelpers,
  helperLimits,
  prepareBlock,
  replSyntaxChecker,
  type PreparedBlock,
  type ProbeRepl,
  type SyntaxChecker,
} from "./repl-probes.ts";
export { SubcallPolicy, SubcallTooLongError, type SubcallOutcome, type SubcallPolicyOptions } from "./subcall-policy.ts";
export {
  runFallback,
  planFallback,
  fallbackChunkBudget,
  type FallbackEvent,
  type FallbackOptions,
  type FallbackPlan,
  type FallbackResult,
  type FallbackSource,
} from "./fallback.ts";
export {
  DEFAULT_FALLBACK_POLICY,
  FALLBACK_MODES,
  estimateFallback,
  fallbackEndpoint,
  gateFallback,
  overLimits,
  questionWords,
  type FallbackAsker,
  type FallbackDecision,
  type FallbackEstimate,
  type FallbackMode,
  type FallbackPolicy,
  type FallbackQuestion,
} from "./fallback-cost.ts";
export { chooseRunMode, RUN_MODE_CHOICES, type RunModeChoice, type RunModeRequest } from "./run-mode.ts";
export { directQuestion, runDirect, type DirectRunInput } from "./direct-run.ts";
export { replDocumentSource } from "./context-source.ts";
export { playTurn, observationMessage, type RunGuards, type TurnHost, type TurnOutcome } from "./turn.ts";
export { completeRoot, rootRequest, type RootReply } from "./root-request.ts";
export { fallbackStep, type FallbackStepInput, type FallbackStepResult } from "./fallback-step.ts";
