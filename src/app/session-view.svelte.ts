// What the page shows of the session that is open, and what the page's controller needs from
// the browser. Apart from the controller so the parts it is made of (sessions, documents, runs)
// can name them without importing it.
import type { EngineManager } from "./engines.svelte.ts";
import type { IngestFiles, IngestProblemView, IngestProgressView } from "./documents.ts";
import type { Exchange } from "./run-view.ts";
import type { Settings } from "./settings.ts";
import type { ReplStatus, SessionRepl } from "../repl/types.ts";
import type { DocumentMeta, SessionRecord, SessionStorage } from "../store/index.ts";

export interface AppDeps {
  /** The browser's session store (IndexedDB); a failure falls back to memory. */
  openStore(): Promise<SessionStorage>;
  /** A new, not yet started REPL for one session; `onStatus` reports its worker's state. */
  createRepl(onStatus: (status: ReplStatus) => void): SessionRepl;
  ingest: IngestFiles;
  /** `update` lets the engines save settings (llama.cpp chosen when there is no WebGPU, a dropped model file). */
  engines(settings: () => Settings, update: (next: Settings) => void): EngineManager;
  /** Where settings persist (localStorage in the browser). */
  settingsStorage: Pick<Storage, "getItem" | "setItem"> | null;
  download(name: string, content: string, type: string): void;
  /** Prepares a document for the viewer in the background (its map takes a moment on 100 MB). */
  prepareDocument?(blob: Blob, meta: DocumentMeta): void;
}

/** What the page shows of the session that is open. */
export class SessionView {
  record = $state<SessionRecord | null>(null);
  exchanges = $state<Exchange[]>([]);
  ingest = $state<IngestProgressView | null>(null);
  problems = $state<IngestProblemView[]>([]);
  replStatus = $state<ReplStatus>({ state: "starting" });
  running = $state(false);
  stopping = $state(false);
  /** A question was held back because it had nowhere to go (no model yet); the fix is missingModel(). */
  held = $state(false);

  get totalChars(): number {
    return this.record?.documents.reduce((s, d) => s + d.chars, 0) ?? 0;
  }
}
