export {
  SessionStore,
  StorageFullError,
  StorageUnavailableError,
  requestPersistentStorage,
  type DocumentMeta,
  type SessionRecord,
  type StoredDocument,
} from "./db.ts";
