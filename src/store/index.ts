export { SessionStore, StorageUnavailableError, requestPersistentStorage } from "./db.ts";
export { MemoryStore } from "./memory.ts";
export type { DocumentMeta, SessionRecord, SessionStorage, StoredDocument } from "./types.ts";
export { summarizeSteps, type RunLimits, type RunSteps, type StepsSummary, type StoredExchange, type StoredStatus } from "./schema.ts";
