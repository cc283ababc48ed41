// A session's documents on their way to Python: changes run one after another (a question waits
// for the last), failures are kept by path until the document is removed or added again, and
// what `context` will be is known before Python has it. Apart from RlmSession, whose job is the
// questions.
import type { ContextDocumentInput, ContextInfo, ContextShape } from "../repl/protocol.ts";
import type { SessionRepl } from "../repl/types.ts";

/**
 * A document as the session holds it: its path (its key in `context`) and its bytes, or (the
 * CLI) the host file Python reads them from.
 */
export type SessionDocument = ({ path: string; data: Blob } | { path: string; file: string }) & {
  /**
   * Its kind in the format registry (DocumentMeta.kind: "text", "pdf", "docx"…), which Python
   * cites its places by (pages, paragraphs); plain text without one.
   */
  kind?: string;
  /**
   * The characters the document decodes to, when the caller already knows (the CLI counts a
   * file's UTF-8 without decoding it). With it, a question's first model request goes out while
   * Python is still starting and decoding (see `pending` in loop.ts); a wrong count only costs
   * that request being made again.
   */
  chars?: number;
};

/** Keys Python lists in its description of a dict `context` (describe_context in workers/python/rlm_runtime/documents.py). */
const KEYS_PREVIEW = 20;

/** `context` as Python will describe it once these documents are loaded ("auto" shape), if known. */
export function expectedContext(docs: readonly SessionDocument[]): ContextInfo | null {
  if (!docs.length || docs.some((d) => d.chars === undefined)) return null;
  const total = docs.reduce((n, d) => n + d.chars!, 0);
  if (docs.length === 1) return { type: "str", total_chars: total, items: 1 };
  return { type: "dict", total_chars: total, items: docs.length, keys_preview: docs.slice(0, KEYS_PREVIEW).map((d) => d.path) };
}

function replInput(doc: SessionDocument): ContextDocumentInput {
  const kind = doc.kind === undefined ? {} : { kind: doc.kind };
  return "file" in doc ? { name: doc.path, path: doc.file, ...kind } : { name: doc.path, data: doc.data, ...kind };
}

export class DocumentLoadError extends Error {
  override name = "DocumentLoadError";
  constructor(path: string, cause: unknown) {
    super(
      `The document ${path} did not reach Python (${lastLine(cause)}), so no question can be answered from it. ` +
        "Remove it and add it again; if that fails, reload the page.",
    );
  }
}

/** The useful line of an error: a Python traceback ends with "Type: message". */
function lastLine(cause: unknown): string {
  const text = (cause instanceof Error ? cause.message : String(cause)).trim();
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  return (lines.at(-1) ?? text).slice(0, 300);
}

export class SessionDocumentQueue {
  /** The documents Python holds. */
  docs: SessionDocument[] = [];
  /** The documents as they will be once the queued document work is done (in Python's order). */
  ahead: SessionDocument[] = [];
  /** Document changes run one after another; a question waits for the last one. */
  private work: Promise<void> = Promise.resolve();
  /** Documents that failed to load, by path, until removed or added again. */
  private readonly failed = new Map<string, DocumentLoadError>();

  constructor(private readonly repl: SessionRepl) {}

  get anyFailed(): boolean {
    return this.failed.size > 0;
  }

  /** Adds documents one by one: only they are decoded; the others stay as they are. */
  add(docs: SessionDocument[]): Promise<void> {
    for (const doc of docs) this.ahead = [...this.ahead.filter((d) => d.path !== doc.path), doc];
    return this.queue(async () => {
      for (const doc of docs) {
        try {
          await this.repl.addDocument(replInput(doc));
          this.docs = [...this.docs.filter((d) => d.path !== doc.path), doc];
          this.failed.delete(doc.path);
        } catch (err) {
          const failure = new DocumentLoadError(doc.path, err);
          this.failed.set(doc.path, failure);
          throw failure;
        }
      }
    });
  }

  /** Removes one document from `context` and lets go of its bytes. */
  remove(path: string): Promise<void> {
    this.ahead = this.ahead.filter((d) => d.path !== path);
    return this.queue(async () => {
      this.docs = this.docs.filter((d) => d.path !== path);
      this.failed.delete(path);
      await this.repl.removeDocument(path);
    });
  }

  /** Python's namespace emptied and `context` made of these documents only, shaped as asked, in one queued step. */
  startOver(docs: SessionDocument[], shape: ContextShape): Promise<void> {
    this.ahead = [...docs];
    return this.queue(async () => {
      this.docs = [];
      this.failed.clear();
      await this.repl.resetNamespace();
      try {
        await this.repl.loadDocuments(docs.map(replInput), shape);
      } catch (err) {
        const failure = new DocumentLoadError(docs.map((d) => d.path).join(", "), err);
        for (const doc of docs) this.failed.set(doc.path, failure);
        throw failure;
      }
      this.docs = [...docs];
    });
  }

  /** Resolves once every document change has reached Python; rejects if one did not. */
  async ready(): Promise<ContextInfo | null> {
    await this.work;
    const [failure] = this.failed.values();
    if (failure) throw failure;
    return this.repl.contextInfo;
  }

  private queue(work: () => Promise<void>): Promise<void> {
    const next = this.work.then(work);
    this.work = next.catch(() => undefined);
    return next;
  }
}
