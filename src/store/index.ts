export { SessionStore, StorageFullError, StorageUnavailableError, requestPersistentStorage } from "./db.ts";
export { MemoryStore } from "./memory.ts";
export type { DocumentMeta, SessionRecord, SessionStorage, StoredDocument } from "./types.ts";
export {
  SCHEMA_VERSION,
  summarizeSteps,
  type RunLimits,
  type RunSteps,
  type StepsSummary,
  type StoredCompare,
  type StoredExchange,
  type StoredStatus,
} from "./schema.ts";
