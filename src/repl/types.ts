import type { Remote } from "comlink";
import type { CellResult, ContextDocumentInput, ContextInfo, ContextShape, ReplWorkerApi, SubcallRequest, SyncMode } from "./protocol.ts";

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

/** What the RLM loop needs from a REPL. Implemented by ReplClient over a worker. */
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
}

/** One live worker, however it was created (browser Worker or Node worker thread). */
export interface ReplTransport {
  api: Remote<ReplWorkerApi>;
  transfer<T>(value: T, transferables: Transferable[]): T;
  terminate(): void;
  /** Called when the worker dies on its own (crash, out of memory). */
  onExit(listener: (reason: string) => void): void;
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
  /** Called with each phase of a (re)start, for progress displays. */
  onStatus?: (status: ReplStatus) => void;
}

export type ReplStatus =
  | { state: "starting" }
  | { state: "ready"; syncMode: SyncMode; bootMs: number }
  | { state: "restarting"; reason: string }
  | { state: "failed"; message: string };

export type { CellResult, ContextDocumentInput, ContextInfo, ContextShape, SubcallRequest };
