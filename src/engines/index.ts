export type { ChatCallOptions, ChatEngine, ChatMessage, ChatRequest, ChatResult, ChatRole, ChatUsage, FinishReason } from "./types.ts";
export {
  ContextWindowExceededError,
  EngineAbortedError,
  EngineError,
  EngineHttpError,
  EngineProtocolError,
  EngineUnreachableError,
} from "./errors.ts";
export {
  OpenAIEngine,
  DEFAULT_OPENAI_CONTEXT_WINDOW,
  discoverContextWindow,
  normalizeBaseUrl,
  type OpenAIEngineOptions,
} from "./openai.ts";
export { Limiter } from "./limiter.ts";
export { CHARS_PER_TOKEN, estimateMessagesTokens, estimateTokens } from "./tokens.ts";
