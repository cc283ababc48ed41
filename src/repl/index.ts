export { ReplClient } from "./client.ts";
export { ReplStartError } from "./errors.ts";
export type * from "./types.ts";
export {
  ReplProtocolError,
  parseCellResult,
  parseContextInfo,
  parseSubcallRequest,
  type CellResult,
  type ContextDocumentInput,
  type ContextInfo,
  type ContextShape,
  type ReplWorkerApi,
  type SubcallRequest,
  type SyncMode,
} from "./protocol.ts";
