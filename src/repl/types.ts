import type { Remote } from "comlink";
import type {
  CellResult,
  ContextDocumentInput,
  ContextInfo,
  ContextShape,
  Passage,
  ProbeReply,
  ProbeRequest,
  ReplBootInfo,
  ReplBootOptions,
  ReplWorkerApi,
  SubcallRequest,
  SyncMode,
} from "./protocol.ts";

/** Answers Python's sub-calls. Resolves to one reply per prompt, in order. */
export type SubcallHandler = (request: SubcallRequest) => Promise<string[]>;

export interface RunCellOptions {
  /** Wall-clock limit for this cell; on expiry Python is interrupted, then the worker is rebuilt. */
  timeoutMs?: number;
}

/** A previous question and its answer, visible to model code as `history`. */
export interface HistoryEntry {
  question: string;
  answer: string;
}

/** What the RLM loop needs from a REPL for one question. Implemented by ReplClient over a worker. */
export interface Repl {
  readonly contextInfo: ContextInfo | null;
  runCell(code: string, options?: RunCellOptions): Promise<CellResult>;
  setSubcallHandler(handler: SubcallHandler | null): void;
  /** Stop the running cell (KeyboardInterrupt) and any sub-call it is waiting on. */
  interrupt(): void;
  beginQuestion(history: HistoryEntry[]): Promise<void>;
  setContextText(text: string): Promise<ContextInfo>;
  /** Messages from the worker that failed validation since the last call (then forgotten). */
  takeProtocolErrors?(): string[];
  /**
   * One of the harness's own questions to Python (a block's syntax, `context`'s layout, a read,
   * a ranking, the helpers' limits, where pieces lie): a call of its own, never a cell. Not
   * while a cell of this REPL runs.
   */
  probe<R extends ProbeRequest>(request: R): Promise<ProbeReply<R>>;
  /** The text of document ranges, to quote an answer's sources (REPLs without documents omit it). */
  sourcePassages?(ranges: ReadonlyArray<{ doc: string; start: number; end: number }>): Promise<Array<Passage | null>>;
}

/** What may be done to a freshly rebuilt worker before it is handed out again. */
export interface RebuiltRepl {
  beginQuestion(history: HistoryEntry[]): Promise<void>;
}
export type RebuiltListener = (fresh: RebuiltRepl) => Promise<void> | void;

/** What a session needs from its REPL over its whole life: documents come and go one at a time. */
export interface SessionRepl extends Repl {
  start(): Promise<ReplBootInfo>;
  close(): void;
  addDocument(doc: ContextDocumentInput): Promise<ContextInfo>;
  removeDocument(name: string): Promise<ContextInfo>;
  /** Replaces every document at once, `context` shaped as asked (the benchmark's str or dict). */
  loadDocuments(docs: ContextDocumentInput[], shape?: ContextShape): Promise<ContextInfo>;
  resetNamespace(): Promise<void>;
  /** Checks the worker still answers; rebuilds it if not, and says what happened (else null). */
  ensureResponsive(): Promise<string | null>;
  /**
   * Runs after the worker was rebuilt (crash, hang) and its documents were loaded again, before
   * the cell that noticed returns: the owner restores what else Python must know (history)
   * through the fresh worker it is handed (the client itself is still starting).
   */
  onRebuilt(listener: RebuiltListener): void;
}

/** One live worker, however it was created (browser Worker or Node worker thread). */
export interface ReplTransport {
  api: Remote<ReplWorkerApi>;
  transfer<T>(value: T, transferables: Transferable[]): T;
  terminate(): void;
  /** Called when the worker dies on its own (crash, out of memory). */
  onExit(listener: (reason: string) => void): void;
  /** Boot options only this runtime knows: where snapshots live, a compiled pyodide.asm.wasm. */
  bootOptions?: Pick<ReplBootOptions, "snapshot" | "wasmModule">;
  /** Ports inside `bootOptions`, moved to the worker with the boot call. */
  transferables?: Transferable[];
  /**
   * False when the worker lives in another process (the sandboxed frame): no SharedArrayBuffer
   * can reach it, so the worker has its own interrupt buffer and `interrupt` raises it.
   */
  sharesMemory?: boolean;
  /** Asks Python to stop through the worker's own interrupt buffer (see sharesMemory). */
  interrupt?(): void;
  /** The worker has booted: whatever served only the boot can close. */
  onBooted?(): void;
  /**
   * Opens the service-worker route for blocking sub-calls (engines without JSPI or a usable
   * SharedArrayBuffer), or returns undefined where no service worker controls the page.
   */
  openSubcallRelay?(answer: (request: string) => Promise<string>): SubcallRelay | undefined;
}

/** A live service-worker route: the worker posts to `url`; `close` stops answering. */
export interface SubcallRelay {
  url: string;
  close(): void;
}

export type ReplTransportFactory = () => ReplTransport;

export interface ReplClientOptions {
  indexURL?: string;
  syncMode?: "auto" | SyncMode;
  /** Characters of stdout/stderr a cell keeps (head and tail). */
  outputCap?: number;
  /** After an interrupt, how long to wait for Python before killing the worker. */
  killGraceMs?: number;
  /** How long an idle worker may take to answer the heartbeat before it is rebuilt. */
  heartbeatMs?: number;
  /** Called with each phase of a (re)start, for progress displays. */
  onStatus?: (status: ReplStatus) => void;
  /** Record the passages each cell reads (default true); benchmarks turn it off to compare. */
  recordSources?: boolean;
}

export type ReplStatus =
  | {
      state: "starting";
      /** Seconds since the start began, once it is slow (see slow-start.ts). */
      waitedSeconds?: number;
      /** Why the first try failed, while a second one runs. */
      retrying?: string;
    }
  | { state: "ready"; syncMode: SyncMode; bootMs: number }
  | { state: "restarting"; reason: string }
  /** `message`: what happened and what to do; `reason`: the cause alone, for a status line. */
  | { state: "failed"; message: string; reason: string };

export type { CellResult, ContextDocumentInput, ContextInfo, ContextShape, Passage, ProbeReply, ProbeRequest, SubcallRequest };
