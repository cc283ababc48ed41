// The REPL host's errors: each says what happened and what the person (or the caller) can do.
import { FORMATS } from "../ingest/formats/index.ts";

/**
 * A call on a worker that was torn down (killed, crashed, or its session closed) before it
 * answered. Comlink would leave such a call pending for ever, and whoever waited on it with it.
 */
export class WorkerGoneError extends Error {
  override name = "WorkerGoneError";
  constructor(readonly reason: string) {
    super(`The Python worker stopped before it answered (${reason}). Ask again: a new worker is started with the documents.`);
  }
}

/**
 * A document handed to Python with a kind no format of the registry has: Python would cite it by
 * lines alone, silently, where its format has pages or paragraphs. A caller's bug, refused before
 * anything reaches the worker.
 */
export class UnknownDocumentKindError extends Error {
  override name = "UnknownDocumentKindError";
  constructor(doc: string, kind: string) {
    super(
      `The document ${doc} was given the kind ${JSON.stringify(kind)}, which no document format has ` +
        `(${FORMATS.map((f) => f.kind).join(", ")}). Pass the kind ingest gave it (DocumentMeta.kind), or none for plain text.`,
    );
  }
}

/** Why a start failed, in a few words (the error's own message, or how its worker ended). */
export function startFailureReason(cause: unknown): string {
  if (cause instanceof ReplStartError) return cause.reason;
  // How the worker ended is the reason (a file that did not arrive, a frame that did not start).
  if (cause instanceof WorkerGoneError) return cause.reason;
  return cause instanceof Error ? cause.message : String(cause);
}

export class ReplStartError extends Error {
  override name = "ReplStartError";
  /** The cause alone, short enough for a status line. */
  readonly reason: string;
  /** `cause`: why the last try failed; `firstTry`: why the one before it did, when it was retried. */
  constructor(cause: unknown, firstTry?: string) {
    // Node: the sandbox cannot be raised on this machine; its message says what to do.
    if (cause instanceof Error && cause.name === "SandboxUnavailableError") {
      super(`Python's sandbox could not be raised: ${cause.message}`);
      this.reason = cause.message;
      return;
    }
    const why = startFailureReason(cause);
    const tries = firstTry === undefined ? "" : ` (it was tried twice; the first try: ${firstTry})`;
    super(`The Python REPL could not start: ${why}${tries}. ${inBrowser() ? BROWSER_REMEDY : NODE_REMEDY}`);
    this.reason = why;
  }
}

const BROWSER_REMEDY = "Reload the page; if it keeps failing, this browser may lack WebAssembly features the REPL needs.";
const NODE_REMEDY = "Run it again with --verbose; if it keeps failing, reinstall with npm ci (Node 20.19 or newer).";
const inBrowser = () =>
  typeof (globalThis as { document?: unknown }).document !== "undefined" ||
  typeof (globalThis as { importScripts?: unknown }).importScripts === "function";
