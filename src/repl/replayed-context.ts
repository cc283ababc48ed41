// What is loaded into Python, kept so a rebuilt worker gets it back. Documents are Blob handles
// (no copies); a removed document leaves this record, so nothing here keeps it alive.
import { isDocumentKind } from "../ingest/formats/index.ts";
import { UnknownDocumentKindError } from "./errors.ts";
import type { ContextDocumentInput, ContextShape } from "./protocol.ts";
import type { ReplTransport } from "./types.ts";

type LoadedContext = { kind: "documents"; docs: Map<string, ContextDocumentInput>; shape: ContextShape } | { kind: "text"; text: string };

/** Throws unless the document's kind is one the format registry knows (or it has none: plain text). */
export function checkKind(doc: ContextDocumentInput): void {
  if (doc.kind !== undefined && !isDocumentKind(doc.kind)) throw new UnknownDocumentKindError(doc.name, String(doc.kind));
}

export class ReplayedContext {
  private loaded: LoadedContext = { kind: "documents", docs: new Map(), shape: "auto" };

  /** `context` is exactly these documents. */
  setDocuments(docs: ContextDocumentInput[], shape: ContextShape): void {
    this.loaded = { kind: "documents", docs: new Map(docs.map((d) => [d.name, d])), shape };
  }

  /** One more document; a plain-text `context` is replaced. */
  addDocument(doc: ContextDocumentInput): void {
    const docs = this.loaded.kind === "documents" ? this.loaded.docs : new Map<string, ContextDocumentInput>();
    docs.set(doc.name, doc);
    this.loaded = { kind: "documents", docs, shape: "auto" };
  }

  removeDocument(name: string): void {
    if (this.loaded.kind === "documents") this.loaded.docs.delete(name);
  }

  setText(text: string): void {
    this.loaded = { kind: "text", text };
  }

  /** Whether anything is recorded (an empty `context` is not replayed). */
  get isEmpty(): boolean {
    return this.loaded.kind === "documents" && this.loaded.docs.size === 0;
  }

  /** Loads everything recorded into worker `t`; null when there is nothing to load. */
  replay(t: ReplTransport): Promise<string> | null {
    if (this.loaded.kind === "text") return t.api.setContextText(this.loaded.text);
    if (!this.loaded.docs.size) return null;
    return t.api.loadDocuments([...this.loaded.docs.values()], this.loaded.shape);
  }
}
