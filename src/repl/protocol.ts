// The contract between the REPL worker and whoever drives it, plus the checks the main thread
// runs on everything that comes back. The worker runs model-written code over documents that
// may carry prompt injections, so nothing it sends is trusted until it passes these guards.

/**
 * How Python's blocking `llm_query` waits for the host: suspending WebAssembly (JSPI), blocking
 * on a SharedArrayBuffer (needs cross-origin isolation and an engine that exposes it), or, where
 * neither exists (WebKitGTK 2.50 hides SharedArrayBuffer even when isolated and has no JSPI), a
 * synchronous request that the page's service worker relays to the page.
 */
export type SyncMode = "jspi" | "sab" | "service-worker";

/** Where the REPL worker posts blocking sub-calls in "service-worker" mode (a token follows). */
export const SUBCALL_RELAY_PATH = "__rlm/subcall/";

/** The service worker's message to the pages it controls; the page answers on the transferred port. */
export interface SubcallRelayMessage {
  type: "rlm-subcall";
  token: string;
  request: string;
}

/** A page's answer: the reply when the token is its own, else `owned: false`. */
export type SubcallRelayAnswer = { owned: true; reply: string } | { owned: false };

export function isSubcallRelayMessage(v: unknown): v is SubcallRelayMessage {
  if (typeof v !== "object" || v === null) return false;
  const m = v as Record<string, unknown>;
  return m.type === "rlm-subcall" && typeof m.token === "string" && typeof m.request === "string";
}

export interface ReplBootOptions {
  /** Where pyodide.asm.wasm and python_stdlib.zip live (browser only; Node finds them). */
  indexURL?: string;
  /** "auto" picks JSPI when the runtime can stack-switch, else the SharedArrayBuffer channel. */
  syncMode: "auto" | SyncMode;
  /** One byte per interrupt signal; writing 2 raises KeyboardInterrupt in Python. */
  interruptBuffer?: SharedArrayBuffer;
  /** The port sub-call requests travel on (see SubcallMessage). Nothing else is exposed to the worker. */
  hostPort: MessagePort;
  /** Where replies are written while Python blocks, in "sab" mode. */
  sabBuffer?: SharedArrayBuffer;
  /** Where Python's blocking sub-calls are posted in "service-worker" mode (see SUBCALL_RELAY_PATH). */
  subcallUrl?: string;
  /** Characters of stdout (and of stderr) a cell may keep. */
  outputCap: number;
}

/**
 * The only messages on the host port. Worker → host: a request; host → worker: its reply (JSPI
 * mode; in "sab" mode the reply is written into sabBuffer instead). Deliberately not Comlink:
 * Comlink would let the worker walk property paths of a host object (`call.__proto__`...).
 */
export type SubcallMessage = { type: "request"; id: number; request: string } | { type: "reply"; id: number; reply: string };

export function isSubcallRequestMessage(v: unknown): v is Extract<SubcallMessage, { type: "request" }> {
  if (typeof v !== "object" || v === null) return false;
  const m = v as Record<string, unknown>;
  return m.type === "request" && typeof m.id === "number" && Number.isSafeInteger(m.id) && typeof m.request === "string";
}

export interface ReplBootInfo {
  syncMode: SyncMode;
  pythonVersion: string;
  bootMs: number;
}

/** A document on its way into Python. Blobs travel as handles, not as copies. */
export interface ContextDocumentInput {
  name: string;
  data: Blob;
}

export type ContextShape = "auto" | "str" | "list" | "dict";

export interface ContextInfo {
  type: string;
  total_chars: number;
  items: number;
  keys_preview?: string[];
  encodings?: string[];
}

export interface CellResult {
  stdout: string;
  stderr: string;
  /** The submitted answer, or null when the cell did not finish the run. */
  final_answer: string | null;
  /** Short pictures of the user's variables (for the trajectory). */
  locals: Record<string, unknown>;
  /** Seconds. */
  execution_time: number;
  /** Exception type name, or null. */
  error: string | null;
  interrupted: boolean;
}

/** A sub-call request from Python: `llm` is a plain model call, `rlm` a child RLM. */
export interface SubcallRequest {
  kind: "llm" | "rlm";
  prompts: string[];
  model: string | null;
}

export type SubcallReply = { results: string[] } | { interrupted: true };

/** What the worker offers. Every method is safe to call after a failed cell. */
export interface ReplWorkerApi {
  boot(options: ReplBootOptions): Promise<ReplBootInfo>;
  loadDocuments(docs: ContextDocumentInput[], shape: ContextShape): Promise<string>;
  /** Replace `context` with a string (a child RLM's context is its parent's prompt). */
  setContextText(text: string): Promise<string>;
  runCell(code: string, outputCap: number): Promise<string>;
  beginQuestion(historyJson: string): Promise<void>;
  resetNamespace(): Promise<void>;
  variableNames(): Promise<string>;
  /** Memory the Python runtime holds (for benchmarks and diagnostics). */
  stats(): Promise<ReplStats>;
}

export interface ReplStats {
  /** Size of Pyodide's WebAssembly heap; it grows and never shrinks. */
  wasmHeapBytes: number;
}

// --- guards ---------------------------------------------------------------------------------

export class ReplProtocolError extends Error {
  override name = "ReplProtocolError";
  constructor(what: string) {
    super(`The Python worker sent a malformed ${what}; it was dropped. Restart the REPL if this repeats.`);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function parseJson(text: unknown, what: string): unknown {
  if (typeof text !== "string") throw new ReplProtocolError(what);
  try {
    return JSON.parse(text);
  } catch {
    throw new ReplProtocolError(what);
  }
}

export function parseCellResult(text: unknown): CellResult {
  const v = parseJson(text, "cell result");
  if (
    !isRecord(v) ||
    typeof v.stdout !== "string" ||
    typeof v.stderr !== "string" ||
    !(v.final_answer === null || typeof v.final_answer === "string") ||
    !isRecord(v.locals) ||
    typeof v.execution_time !== "number" ||
    !(v.error === null || typeof v.error === "string") ||
    typeof v.interrupted !== "boolean"
  ) {
    throw new ReplProtocolError("cell result");
  }
  return {
    stdout: v.stdout,
    stderr: v.stderr,
    final_answer: v.final_answer,
    locals: v.locals,
    execution_time: v.execution_time,
    error: v.error,
    interrupted: v.interrupted,
  };
}

export function parseContextInfo(text: unknown): ContextInfo {
  const v = parseJson(text, "context description");
  if (!isRecord(v) || typeof v.type !== "string" || typeof v.total_chars !== "number" || typeof v.items !== "number") {
    throw new ReplProtocolError("context description");
  }
  const info: ContextInfo = { type: v.type, total_chars: v.total_chars, items: v.items };
  if (Array.isArray(v.keys_preview)) info.keys_preview = v.keys_preview.map(String);
  if (Array.isArray(v.encodings)) info.encodings = v.encodings.map(String);
  return info;
}

export function parseSubcallRequest(text: unknown): SubcallRequest {
  const v = parseJson(text, "sub-call request");
  if (
    !isRecord(v) ||
    (v.kind !== "llm" && v.kind !== "rlm") ||
    !Array.isArray(v.prompts) ||
    !v.prompts.every((p) => typeof p === "string") ||
    !(v.model === null || v.model === undefined || typeof v.model === "string")
  ) {
    throw new ReplProtocolError("sub-call request");
  }
  return { kind: v.kind, prompts: v.prompts as string[], model: (v.model as string | null | undefined) ?? null };
}

export function parseStringList(text: unknown, what: string): string[] {
  const v = parseJson(text, what);
  if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) throw new ReplProtocolError(what);
  return v as string[];
}

// --- the SharedArrayBuffer channel layout (both sides must agree) ---------------------------

/** Int32 slots at the start of the buffer: [state, byteLength]; bytes follow at offset 8. */
export const SAB_HEADER_BYTES = 8;
export const SAB_STATE_IDLE = 0;
export const SAB_STATE_PENDING = 1;
export const SAB_STATE_READY = 2;
export const SAB_STATE_TOO_LARGE = 3;
export const SAB_DEFAULT_BYTES = 8 * 1024 * 1024;
