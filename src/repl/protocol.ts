// The contract between the REPL worker and whoever drives it, plus the checks the main thread
// runs on everything that comes back. The worker runs model-written code over documents that
// may carry prompt injections, so nothing it sends is trusted until it passes these guards.

/** How Python's blocking `llm_query` waits for the host. */
export type SyncMode = "jspi" | "sab";

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
  /** Characters of stdout (and of stderr) a cell may keep. */
  outputCap: number;
  /** Record which passages of the documents each cell read (default true; off for benchmarks). */
  recordSources?: boolean;
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
  /** What the cell read of the documents (absent from REPLs that do not record it). */
  sources?: SourceRange[];
}

/**
 * How a passage was read: printed by a cell, quoted in a sub-call prompt, matched by a regex,
 * cited by the model with cite(), or (in the cell that submitted the answer) where the answer
 * appears in what the question read.
 */
export type SourceKind = "print" | "prompt" | "match" | "cite" | "answer";

/**
 * A passage of a document. Offsets count characters of the document's Python str (code points,
 * end exclusive); lines, pages and paragraphs are 1-based. Snake case, like the trajectory
 * records it is stored in.
 */
export interface SourceRange {
  /** The document's key in `context` (its path), or the single document's name. */
  doc: string;
  start: number;
  end: number;
  line: number;
  end_line: number;
  /** PDF documents: the page of `start` and of the last character. */
  page?: number;
  end_page?: number;
  /** DOCX documents: the paragraph of `start`. */
  paragraph?: number;
  kind: SourceKind;
  /** "answer" ranges: how much of the answer was found there, 0..1. */
  score?: number;
}

/** A sub-call request from Python: `llm` is a plain model call, `rlm` a child RLM. */
export interface SubcallRequest {
  kind: "llm" | "rlm";
  prompts: string[];
  model: string | null;
  /** For each prompt, the passages of the documents it quotes. */
  sources?: SourceRange[][];
}

/** A passage's text as quoted under an answer: the range, and the rest of its lines around it. */
export interface Passage {
  before: string;
  text: string;
  after: string;
}

export type SubcallReply = { results: string[] } | { interrupted: true };

/** What the worker offers. Every method is safe to call after a failed cell. */
export interface ReplWorkerApi {
  boot(options: ReplBootOptions): Promise<ReplBootInfo>;
  /** Replace `context` with exactly these documents. */
  loadDocuments(docs: ContextDocumentInput[], shape: ContextShape): Promise<string>;
  /** Decode one document into `context` (one document: a str; several: a dict path -> text). */
  addDocument(name: string, data: Blob): Promise<string>;
  removeDocument(name: string): Promise<string>;
  /** Replace `context` with a string (a child RLM's context is its parent's prompt). */
  setContextText(text: string): Promise<string>;
  runCell(code: string, outputCap: number): Promise<string>;
  beginQuestion(historyJson: string): Promise<void>;
  resetNamespace(): Promise<void>;
  variableNames(): Promise<string>;
  /** JSON [{doc, start, end}] in, JSON [Passage | null] out: the text of ranges to quote. */
  sourcePassages(rangesJson: string): Promise<string>;
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
    typeof v.interrupted !== "boolean" ||
    !(v.sources === undefined || Array.isArray(v.sources))
  ) {
    throw new ReplProtocolError("cell result");
  }
  const result: CellResult = {
    stdout: v.stdout,
    stderr: v.stderr,
    final_answer: v.final_answer,
    locals: v.locals,
    execution_time: v.execution_time,
    error: v.error,
    interrupted: v.interrupted,
  };
  const sources = validSources(v.sources, MAX_CELL_SOURCES);
  if (sources.length) result.sources = sources;
  return result;
}

/** Caps on what the worker may claim it read: beyond them the rest is dropped. */
export const MAX_CELL_SOURCES = 512;
export const MAX_PROMPT_SOURCES = 64;
const MAX_DOC_NAME = 4096;
const SOURCE_KINDS: readonly SourceKind[] = ["print", "prompt", "match", "cite", "answer"];

const isCount = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

/** One range as the worker sent it, or null when any field is off (the range is dropped). */
export function parseSourceRange(v: unknown): SourceRange | null {
  if (!isRecord(v)) return null;
  const { doc, start, end, line, end_line, kind } = v;
  if (typeof doc !== "string" || !doc || doc.length > MAX_DOC_NAME) return null;
  if (!isCount(start) || !isCount(end) || end <= start || !isCount(line) || !isCount(end_line) || end_line < line) return null;
  if (!SOURCE_KINDS.includes(kind as SourceKind)) return null;
  const range: SourceRange = { doc, start, end, line, end_line, kind: kind as SourceKind };
  if (v.page !== undefined) {
    if (!isCount(v.page) || !isCount(v.end_page) || v.end_page < v.page) return null;
    range.page = v.page;
    range.end_page = v.end_page;
  }
  if (v.paragraph !== undefined) {
    if (!isCount(v.paragraph)) return null;
    range.paragraph = v.paragraph;
  }
  if (kind === "answer") {
    if (typeof v.score !== "number" || !(v.score >= 0 && v.score <= 1)) return null;
    range.score = v.score;
  }
  return range;
}

/** The well-formed ranges of a list, at most `max` of them. */
export function validSources(list: unknown, max: number): SourceRange[] {
  if (!Array.isArray(list)) return [];
  const out: SourceRange[] = [];
  for (const item of list) {
    if (out.length >= max) break;
    const range = parseSourceRange(item);
    if (range) out.push(range);
  }
  return out;
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
    !(v.model === null || v.model === undefined || typeof v.model === "string") ||
    !(v.sources === undefined || v.sources === null || (Array.isArray(v.sources) && v.sources.length === v.prompts.length))
  ) {
    throw new ReplProtocolError("sub-call request");
  }
  const request: SubcallRequest = { kind: v.kind, prompts: v.prompts as string[], model: (v.model as string | null | undefined) ?? null };
  if (Array.isArray(v.sources)) request.sources = v.sources.map((list) => validSources(list, MAX_PROMPT_SOURCES));
  return request;
}

/** The worker's answer to sourcePassages: one passage (or null) per range asked about. */
export function parsePassages(text: unknown, count: number): Array<Passage | null> {
  const v = parseJson(text, "list of passages");
  if (!Array.isArray(v) || v.length !== count) throw new ReplProtocolError("list of passages");
  return v.map((p) =>
    isRecord(p) && typeof p.before === "string" && typeof p.text === "string" && typeof p.after === "string"
      ? { before: p.before.slice(0, 2000), text: p.text.slice(0, 2000), after: p.after.slice(0, 2000) }
      : null,
  );
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
