// The contract between the REPL worker and whoever drives it, plus the checks the main thread
// runs on everything that comes back. The worker runs model-written code over documents that
// may carry prompt injections, so nothing it sends is trusted until it passes these guards.
import { groupDigits } from "../core/numbers.ts";

/**
 * How Python's blocking `llm_query` waits for the host: suspending WebAssembly (JSPI), blocking
 * on a SharedArrayBuffer (needs cross-origin isolation and an engine that exposes it), or, where
 * neither exists (WebKitGTK 2.50 hides SharedArrayBuffer even when isolated and has no JSPI), a
 * synchronous request that the page's service worker relays to the page.
 */
export type SyncMode = "jspi" | "sab" | "service-worker";

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
  /** Record which passages of the documents each cell read (default true; off for benchmarks). */
  recordSources?: boolean;
  /**
   * The heartbeat: the host posts a number, the worker's own JS (not Python) posts it back. It
   * lives on a port only that JS holds, so Python can neither answer for a wedged worker nor
   * intercept it; a worker that is busy with work a cell left behind, or gone, stays silent.
   */
  pingPort?: MessagePort;
  /**
   * Where a memory snapshot of "Pyodide + the Python runtime" is kept, so later starts restore it
   * instead of booting Python (about 5 s → well under 1 s). Absent: the runtime's default (the
   * browser's Cache Storage; none in Node, where the CLI names a directory).
   */
  snapshot?: SnapshotSetting;
  /** pyodide.asm.wasm already compiled by the page: saves each extra worker compiling it again. */
  wasmModule?: WebAssembly.Module;
  /**
   * False leaves the worker's second wall down (lockdown.ts, lockdown.node.ts). Only the tests that
   * prove each wall holds alone, and that the attacks would succeed with none, set it.
   */
  lockDown?: boolean;
}

/** `rebuild`: make and store a new snapshot even if a good one is stored (`rlm warmup --rebuild`). */
export type SnapshotSetting =
  | { kind: "off" }
  /** Browser: a dedicated cache in Cache Storage, read and written by the worker before lockDown. */
  | { kind: "cache-storage"; cacheName: string; rebuild?: boolean }
  /**
   * The sandboxed frame's worker (an opaque origin, no storage of its own): the page keeps the
   * snapshot and answers over this port, and only until the worker has booted.
   */
  | { kind: "port"; port: MessagePort; rebuild?: boolean }
  /**
   * Node: a file in this directory (the CLI uses the user's cache directory). `writes`: where the
   * worker sends what it would write there, when it may not write itself (the CLI's sandbox
   * process, see src/repl/cache-writes.node.ts); absent, it writes the files itself.
   */
  | { kind: "directory"; path: string; rebuild?: boolean; writes?: MessagePort };

/** The named steps of a start, in the order they can happen. */
export type BootPhase = "reading-snapshot" | "restoring-snapshot" | "loading-pyodide" | "installing-runtime" | "making-snapshot" | "ready";

/**
 * How Python was started: "restored" from a stored snapshot; "made-snapshot" booted from scratch,
 * snapshotted, and restored from those fresh bytes (and stored them); "plain" booted from scratch
 * without snapshots (they are off, or making one failed).
 */
export type BootPath = "restored" | "made-snapshot" | "plain";

export interface SnapshotBootReport {
  path: BootPath;
  /** Why this start did not restore a snapshot, or what went wrong with one: for the log and --verbose. */
  note?: string;
  /** Where snapshots are kept ("Cache Storage 'rlm-python-snapshot'", a file path), if anywhere. */
  where?: string;
  /** For a snapshot made by this start: kept, failed to be kept (see note), or still being written (browser). */
  stored?: "yes" | "failed" | "pending";
  /**
   * For a restored snapshot: its checksum was verified ("checksum"), or skipped because the store
   * vouched the bytes passed it before and had not changed since ("stamp", Node's file store).
   */
  verified?: "checksum" | "stamp";
  /** Milliseconds per phase, in the order they ran. */
  phases: Array<{ phase: BootPhase; ms: number }>;
}

export interface ReplBootInfo {
  syncMode: SyncMode;
  pythonVersion: string;
  bootMs: number;
  /** Which start-up path was taken and where its time went (always sent by the real workers). */
  snapshot?: SnapshotBootReport;
  /** Node: the sandbox process the worker runs in, as it reported itself (src/repl/node-sandbox.ts). */
  sandbox?: SandboxReport;
}

/** The walls around a REPL worker in the CLI's sandbox process (see src/node/python-sandbox.mjs). */
export interface SandboxReport {
  /** Node's permission model is on: reads only where granted, no writes, no processes, no addons. */
  permission: boolean;
  /** Code generation from strings is off for the whole process. */
  noStringCode: boolean;
  /** How many environment variables the process holds (it is started with none, or only TZ). */
  envVars: number;
  /** The worker's own lockdown (workers/node/lockdown.node.ts) is up. */
  lockdown: boolean;
}

/**
 * A document on its way into Python. Blobs travel as handles, not as copies. A `path` is a file
 * the worker reads itself (Node only: a file-backed Blob cannot be posted to a worker thread, and
 * reading it on the host first would hold a second copy of a 500 MB document). `kind` is the
 * document's kind in the format registry (src/ingest/formats: what ingest gave it, DocumentMeta's
 * `kind`), which decides whether Python cites it by pages or paragraphs; without one it is plain
 * text. ReplClient refuses a kind the registry does not know.
 */
export type ContextDocumentInput = ({ name: string; data: Blob } | { name: string; path: string }) & { kind?: string };

export type ContextShape = "auto" | "str" | "list" | "dict";

export interface ContextInfo {
  type: string;
  total_chars: number;
  items: number;
  keys_preview?: string[];
  encodings?: string[];
}

/** The most a submitted answer may be (a 1 MB answer still renders, see src/ui). */
export const FINAL_ANSWER_MAX_CHARS = 1_000_000;
/** The most the variable summaries of one cell may take (they go into the trajectory). */
const LOCALS_MAX_CHARS = 20_000;

/** The longest cell result a worker may send for an output cap: anything longer is dropped unread. */
export function maxCellResultChars(outputCap: number): number {
  // stdout and stderr, each escaped (JSON can double a character), the answer, the locals.
  return 2 * (2 * outputCap) + 2 * FINAL_ANSWER_MAX_CHARS + LOCALS_MAX_CHARS + 4096;
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
  addDocument(doc: ContextDocumentInput): Promise<string>;
  removeDocument(name: string): Promise<string>;
  /** Replace `context` with a string (a child RLM's context is its parent's prompt). */
  setContextText(text: string): Promise<string>;
  /** `cellId` tags the cell's start and result messages on the private heartbeat port. */
  runCell(code: string, outputCap: number, cellId?: number): Promise<string>;
  beginQuestion(historyJson: string): Promise<void>;
  resetNamespace(): Promise<void>;
  /** JSON [{doc, start, end}] in, JSON [Passage | null] out: the text of ranges to quote. */
  sourcePassages(rangesJson: string): Promise<string>;
  /**
   * One of the host's own questions to Python (a ProbeRequest as JSON in; {ok, value} or {ok,
   * error} as JSON out): a call of its own, not a cell, so it pays no evidence recorder, no
   * locals snapshot and no output cap. The host validates the reply (parseProbeReply).
   */
  probe(requestJson: string): Promise<string>;
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

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function parseJson(text: unknown, what: string): unknown {
  if (typeof text !== "string") throw new ReplProtocolError(what);
  try {
    return JSON.parse(text);
  } catch {
    throw new ReplProtocolError(what);
  }
}

/**
 * A cell result from the worker, checked and cut to the host's own caps: Python can patch its
 * side of the output cap (the writer, the JSON), so the limits that protect the page and the
 * model's window are applied here, on the main thread, where model code cannot reach.
 */
export function parseCellResult(text: unknown, outputCap = Number.POSITIVE_INFINITY): CellResult {
  if (typeof text === "string" && Number.isFinite(outputCap) && text.length > maxCellResultChars(outputCap)) {
    throw new ReplProtocolError(`cell result (${groupDigits(text.length)} characters, over the limit)`);
  }
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
    stdout: capText(v.stdout, outputCap),
    stderr: capText(v.stderr, outputCap),
    final_answer: v.final_answer === null ? null : capText(v.final_answer, FINAL_ANSWER_MAX_CHARS),
    locals: capLocals(v.locals),
    execution_time: v.execution_time,
    error: v.error === null ? null : v.error.slice(0, 200),
    interrupted: v.interrupted,
  };
  const sources = validSources(v.sources, MAX_CELL_SOURCES);
  if (sources.length) result.sources = sources;
  return result;
}

/** Caps on what the worker may claim it read: beyond them the rest is dropped. */
export const MAX_CELL_SOURCES = 512;
const MAX_PROMPT_SOURCES = 64;
const MAX_DOC_NAME = 4096;
const SOURCE_KINDS: readonly SourceKind[] = ["print", "prompt", "match", "cite", "answer"];

const isCount = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

/** One range as the worker sent it, or null when any field is off (the range is dropped). */
function parseSourceRange(v: unknown): SourceRange | null {
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
function validSources(list: unknown, max: number): SourceRange[] {
  if (!Array.isArray(list)) return [];
  const out: SourceRange[] = [];
  for (const item of list) {
    if (out.length >= max) break;
    const range = parseSourceRange(item);
    if (range) out.push(range);
  }
  return out;
}

/** Keeps both ends of an over-long text, and says how much was cut. */
export function capText(text: string, cap: number): string {
  if (!(text.length > cap)) return text;
  const half = Math.floor(cap / 2);
  return `${text.slice(0, half)}\n... [${groupDigits(text.length - 2 * half)} characters omitted by the host] ...\n${text.slice(text.length - half)}`;
}

function capLocals(locals: Record<string, unknown>): Record<string, unknown> {
  if (JSON.stringify(locals).length <= LOCALS_MAX_CHARS) return locals;
  const kept: Array<[string, unknown]> = [];
  let size = 2;
  for (const [name, value] of Object.entries(locals)) {
    const entry = JSON.stringify([name, value]).length;
    if (size + entry > LOCALS_MAX_CHARS) break;
    kept.push([name, value]);
    size += entry;
  }
  // fromEntries defines own properties, so a variable named "__proto__" stays a plain key.
  return Object.fromEntries(kept);
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

// --- probes: the host's own questions to Python (issue 27 §1: a worker call, not cells) ------

/** A range of `context`: `doc` is null for a plain-string `context`, else the document's key. */
export interface ContextRange {
  doc: string | null;
  start: number;
  end: number;
}

/** "Does this block parse as Python?" — and, if not, would it without its cut-off last line. */
export type SyntaxVerdict =
  | { ok: true }
  | {
      ok: false;
      /** "SyntaxError: …" */
      error: string;
      line: number | null;
      /** The code without its last line, when that parses (a reply cut off mid-line). */
      trimmed: string | null;
      dropped: string | null;
    };

/** What search() and map_query() need to know about the sub-model. */
export interface HelperLimits {
  /** Characters of `context` per map_query prompt. */
  chunkChars: number;
  /** Parts map_query may send in one call (each is a sub-call). */
  maxChunks: number;
}

/**
 * Every question the harness asks Python about `context` or code, never through a cell: a
 * block's syntax, the documents' lengths, characters a..b of one, the pieces a bounded
 * map-reduce should read, the helpers' limits, and where pieces the harness read lie (lines).
 */
export type ProbeRequest =
  | { kind: "syntax"; code: string }
  | { kind: "layout" }
  | ({ kind: "read" } & ContextRange)
  | { kind: "rank"; question: string; chunkChars: number; maxChunks: number }
  | ({ kind: "configure" } & HelperLimits)
  | { kind: "place"; ranges: ContextRange[] }
  /** How many lines `context` has, how many a pattern (literal, or a regex) matches, and its first lines. */
  | { kind: "lines"; pattern: string | null; regex: boolean }
  /** Whether a text stands in `context` as a token of its own, or only inside a longer one. */
  | { kind: "occurs"; text: string };

/** The reply to an "occurs" probe. */
export interface Occurrence {
  /** The text stands somewhere in `context` as a token of its own. */
  standalone: boolean;
  /** When it does not: the longer token it is a piece of ("7319001" for "1"), if it appears at all. */
  longer: string | null;
}

/** The reply to a "lines" probe. */
export interface LineCounts {
  total: number;
  /** Lines the pattern matched; null without a pattern (or one Python cannot compile). */
  matched: number | null;
  /** The first non-empty lines (at most 5, each at most 300 characters). */
  first: string[];
  /** When the pattern matched nothing: a line holding its longest word, which it was probably meant to match. */
  near?: string | null;
}

/** The checked reply to each kind of probe. */
export interface ProbeReplies {
  syntax: SyntaxVerdict;
  /** One entry per document of `context`, in order. */
  layout: Array<{ doc: string | null; length: number }>;
  /** The characters asked for (fewer only where the document ends). */
  read: string;
  rank: ContextRange[];
  configure: null;
  place: SourceRange[];
  lines: LineCounts;
  occurs: Occurrence;
}

export type ProbeReply<R extends ProbeRequest> = ProbeReplies[R["kind"]];

const PROBE_WHAT: Record<ProbeRequest["kind"], string> = {
  syntax: "check a block's syntax",
  layout: "read the shape of `context`",
  read: "read part of `context`",
  rank: "choose parts of `context`",
  configure: "configure the helpers",
  place: "place the pieces it read",
  lines: "count the lines of `context`",
  occurs: "look for the answer in `context`",
};

/** Python answered a probe with an error (or was stopped while it worked). */
export class ReplProbeError extends Error {
  override name = "ReplProbeError";
  constructor(
    readonly kind: ProbeRequest["kind"],
    detail: string,
  ) {
    const last = detail.trim().split("\n").pop() ?? detail;
    super(`The harness could not ${PROBE_WHAT[kind]} in the Python REPL (${last.slice(0, 300)}). If this repeats, restart the session.`);
  }
}

/** Most documents a `context` is described as having (a zip of a large repository stays far below). */
const MAX_LAYOUT_DOCS = 1_000_000;

const isDocName = (v: unknown): v is string | null => v === null || (typeof v === "string" && v.length <= MAX_DOC_NAME);

function parseRange(v: unknown): ContextRange | null {
  if (!Array.isArray(v) || v.length !== 3) return null;
  const [doc, start, end] = v as unknown[];
  return isDocName(doc) && isCount(start) && isCount(end) && start <= end ? { doc, start, end } : null;
}

function parseSyntaxVerdict(v: unknown): SyntaxVerdict | null {
  if (!isRecord(v) || typeof v.ok !== "boolean") return null;
  if (v.ok) return { ok: true };
  const text = (x: unknown) => (x === null || typeof x === "string" ? x : undefined);
  const [trimmed, dropped] = [text(v.trimmed), text(v.dropped)];
  const line = v.line === null || v.line === undefined ? null : isCount(v.line) ? v.line : undefined;
  if (typeof v.error !== "string" || trimmed === undefined || dropped === undefined || line === undefined) return null;
  return { ok: false, error: v.error.slice(0, 500), line, trimmed, dropped };
}

/** The value of a probe's reply, checked against what was asked; anything else is a protocol error. */
function probeValue(request: ProbeRequest, v: unknown): ProbeReplies[ProbeRequest["kind"]] | undefined {
  switch (request.kind) {
    case "syntax": {
      return parseSyntaxVerdict(v) ?? undefined;
    }
    case "layout": {
      if (!Array.isArray(v) || v.length > MAX_LAYOUT_DOCS) return undefined;
      const rows = v.map((row: unknown) =>
        Array.isArray(row) && row.length === 2 && isDocName(row[0]) && isCount(row[1]) ? { doc: row[0], length: row[1] } : null,
      );
      return rows.every((r) => r !== null) ? rows : undefined;
    }
    case "read":
      // Python counts code points, JavaScript UTF-16 units: at most two units per character.
      return typeof v === "string" && v.length <= 2 * Math.max(0, request.end - request.start) ? v : undefined;
    case "rank": {
      if (!Array.isArray(v) || v.length > Math.max(1, request.maxChunks)) return undefined;
      const ranges = v.map(parseRange);
      return ranges.every((r) => r !== null) ? ranges : undefined;
    }
    case "configure":
      return null;
    case "place":
      return validSources(v, MAX_PROMPT_SOURCES);
    case "lines": {
      if (!isRecord(v) || !isCount(v.total) || !(v.matched === null || isCount(v.matched)) || !Array.isArray(v.first)) return undefined;
      const first = v.first.filter((l): l is string => typeof l === "string").slice(0, 5);
      const near = typeof v.near === "string" ? { near: v.near.slice(0, 300) } : {};
      return { total: v.total, matched: v.matched, first: first.map((l) => l.slice(0, 300)), ...near };
    }
    case "occurs": {
      if (!isRecord(v) || typeof v.standalone !== "boolean" || !(v.longer === null || typeof v.longer === "string")) return undefined;
      return { standalone: v.standalone, longer: v.longer === null ? null : v.longer.slice(0, 200) };
    }
  }
}

/** The worker's reply to a probe, checked: its value, or ReplProbeError when Python failed. */
export function parseProbeReply<R extends ProbeRequest>(request: R, text: unknown): ProbeReply<R> {
  const reply = parseJson(text, `reply to the "${request.kind}" probe`);
  if (isRecord(reply) && reply.ok === false && typeof reply.error === "string") throw new ReplProbeError(request.kind, reply.error);
  const value = isRecord(reply) && reply.ok === true ? probeValue(request, reply.value) : undefined;
  if (value === undefined) throw new ReplProtocolError(`reply to the "${request.kind}" probe`);
  return value as ProbeReply<R>;
}

// --- the SharedArrayBuffer channel layout (both sides must agree) ---------------------------

/** Int32 slots at the start of the buffer: [state, byteLength]; bytes follow at offset 8. */
export const SAB_HEADER_BYTES = 8;
export const SAB_STATE_IDLE = 0;
export const SAB_STATE_PENDING = 1;
export const SAB_STATE_READY = 2;
export const SAB_STATE_TOO_LARGE = 3;
export const SAB_DEFAULT_BYTES = 8 * 1024 * 1024;

/**
 * Writes a sub-call's reply where Python, blocked in "sab" mode, waits for it, and wakes it. The
 * host does this for a worker it shares memory with; the sandbox process's relay does it for its
 * own worker (workers/node/repl-sandbox-entry.node.ts).
 */
export function writeBlockingReply(buffer: SharedArrayBuffer, reply: string): void {
  const ctrl = new Int32Array(buffer, 0, 2);
  const bytes = new TextEncoder().encode(reply);
  const room = buffer.byteLength - SAB_HEADER_BYTES;
  if (bytes.length > room) {
    Atomics.store(ctrl, 1, 0);
    Atomics.store(ctrl, 0, SAB_STATE_TOO_LARGE);
  } else {
    new Uint8Array(buffer, SAB_HEADER_BYTES, bytes.length).set(bytes);
    Atomics.store(ctrl, 1, bytes.length);
    Atomics.store(ctrl, 0, SAB_STATE_READY);
  }
  Atomics.notify(ctrl, 0);
}
