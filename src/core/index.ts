export { RlmSession } from "./session.ts";
export { DEFAULT_CONFIG } from "./types.ts";
export type * from "./types.ts";
export * from "./guards/index.ts";
export * as feedback from "./feedback.ts";
