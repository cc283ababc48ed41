export { SessionStore, StorageUnavailableError, requestPersistentStorage } from "./db.ts";
export { MemoryStore } from "./memory.ts";
export type { DocumentMeta, SessionRecord, SessionStorage, StoredDocument } from "./types.ts";
