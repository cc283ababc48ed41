// The open session's documents as the page adds, removes and shows them: read off the main
// thread, stored before they are listed, handed to the session's Python, opened in the viewer.
// Apart from the controller because documents are their own job; model files dropped on the page
// are routed away before they get here.
import { sourceLabel, type RankedSource } from "../core/evidence.ts";
import type { IngestInput } from "../ingest/index.ts";
import { requestPersistentStorage, type SessionRecord } from "../store/index.ts";
import { sessionDocument, type IngestProblemView } from "./documents.ts";
import { titleFor } from "./lead-document.ts";
import { UNTITLED, type SessionLibrary } from "./library.svelte.ts";
import type { Notices } from "./notices.svelte.ts";
import type { OpenSessions } from "./open-sessions.svelte.ts";
import type { AppDeps, SessionView } from "./session-view.svelte.ts";
import { sourceRequest, type ViewerState } from "./viewer.svelte.ts";

export interface DocumentsHost {
  view: SessionView;
  notices: Notices;
  viewer: ViewerState;
  sessions: OpenSessions;
  deps: Pick<AppDeps, "ingest" | "prepareDocument">;
  library(): SessionLibrary | null;
  reportError(err: unknown): void;
}

export class SessionDocuments {
  constructor(private readonly host: DocumentsHost) {}

  /** Reads files off the main thread and adds them to the open session. */
  async add(inputs: IngestInput[], dropProblems: IngestProblemView[] = []): Promise<void> {
    const { view, notices } = this.host;
    const record = view.record;
    const library = this.host.library();
    if (!record || !library || !inputs.length) return;
    if (view.running) {
      notices.notify("warning", "Wait for the current question to finish (or press Stop) before adding documents.");
      return;
    }
    const result = await this.readFiles(
      inputs,
      record.documents.map((d) => d.path),
    );
    view.problems = [...dropProblems, ...(result?.problems ?? [])];
    if (!result) return;
    if (!result.documents.length) {
      if (!result.problems.length) notices.notify("warning", "No readable text was found in those files.");
      return;
    }
    // Stored first, listed after: what the list shows is what a reload finds.
    const saved = $state.snapshot(record) as SessionRecord;
    const next: SessionRecord = {
      ...saved,
      documents: [...saved.documents, ...result.documents.map((d) => d.meta)],
      // A repository is named by its README's title or its zip, not by whichever file came first.
      title: saved.title === UNTITLED ? titleFor(result.documents.map((d) => d.meta)) : saved.title,
    };
    // The bar stays up while a large file is written (the list shows it only then).
    const count = result.documents.length;
    view.ingest = { path: result.documents[count - 1]!.meta.path, phase: "saving", inputIndex: count - 1, inputCount: count, fraction: 1 };
    try {
      await library.addDocuments(
        next,
        result.documents.map((d) => ({ path: d.meta.path, blob: d.blob })),
      );
    } finally {
      view.ingest = null;
    }
    Object.assign(record, { documents: next.documents, title: next.title, updatedAt: next.updatedAt });
    // Not awaited: Firefox asks the person before it grants persistence, and the promise waits
    // for the answer (for ever if they ignore the prompt, or in automation).
    void requestPersistentStorage();
    const session = await this.host.sessions.openLive();
    await session
      ?.addDocuments(result.documents.map((d) => sessionDocument(d.meta, d.blob)))
      .catch((err: unknown) => this.host.reportError(err));
  }

  private async readFiles(inputs: IngestInput[], taken: string[]) {
    const { view } = this.host;
    try {
      return await this.host.deps.ingest(inputs, taken, (p) => (view.ingest = p));
    } catch (err) {
      this.host.notices.notify("error", `Could not read the files: ${err instanceof Error ? err.message : String(err)}`);
      return null;
    } finally {
      view.ingest = null;
    }
  }

  async remove(path: string): Promise<void> {
    const record = this.host.view.record;
    const library = this.host.library();
    if (!record || !library || this.host.view.running) return;
    record.documents = record.documents.filter((d) => d.path !== path);
    await library.removeDocument($state.snapshot(record) as SessionRecord, path);
    await this.host.sessions
      .get(record.id)
      ?.removeDocument(path)
      .catch((err: unknown) => this.host.reportError(err));
  }

  /** Empties the open session's document list, one document at a time (each is saved so). */
  async removeAll(): Promise<void> {
    for (const path of this.host.view.record?.documents.map((d) => d.path) ?? []) await this.remove(path);
  }

  /** Opens a document of the open session in the viewer, at a source's passage when given. */
  async open(path: string, source?: RankedSource): Promise<void> {
    const meta = this.host.view.record?.documents.find((d) => d.path === path);
    const blob = meta ? await this.blob(path) : null;
    if (!meta || !blob) {
      this.host.notices.notify("warning", `${path} is no longer in this session, so it cannot be shown. Add it again to read it.`);
      return;
    }
    this.host.viewer.show(source ? sourceRequest(meta, blob, source, sourceLabel(source)) : { meta, blob });
  }

  /** The documents of an answer's first sources get their viewer map while the person reads. */
  async prepareSources(sources: readonly RankedSource[]): Promise<void> {
    if (!this.host.deps.prepareDocument) return;
    for (const path of new Set(sources.slice(0, 3).map((s) => s.doc))) {
      const meta = this.host.view.record?.documents.find((d) => d.path === path);
      const blob = meta ? await this.blob(path) : null;
      if (meta && blob) this.host.deps.prepareDocument(blob, meta);
    }
  }

  /** A document's bytes: from the live session if it has them, else from storage. */
  private async blob(path: string): Promise<Blob | null> {
    const id = this.host.view.record?.id;
    const library = this.host.library();
    if (!id || !library) return null;
    const live = this.host.sessions.get(id)?.documents.find((d) => d.path === path);
    // The page's documents are Blobs (a path-backed document is the CLI's).
    if (live && "data" in live) return live.data;
    const loaded = await library.load(id);
    return loaded?.documents.find((d) => d.path === path)?.blob ?? null;
  }
}
