export { ContextWindowExceededError, EngineAbortedError, EngineHttpError, EngineUnreachableError } from "./errors.ts";
export { OpenAIEngine, normalizeBaseUrl } from "./openai.ts";
