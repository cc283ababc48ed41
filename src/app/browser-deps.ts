// The real browser behind the page's controller: IndexedDB, a Pyodide worker per session, the
// ingest worker, WebLLM or an endpoint. Tests build the controller with other deps instead.
import { createBrowserRepl } from "../repl/browser.ts";
import { SessionStore } from "../store/index.ts";
import type { AppDeps } from "./controller.svelte.ts";
import { ingestForSession } from "./documents.ts";
import { EngineManager } from "./engines.svelte.ts";
import { pageTestSeams } from "./test-seams.ts";
import { documentIndexer } from "../viewer/client.ts";
import { indexRequestFor } from "./viewer.svelte.ts";
import { download } from "./exports.ts";

export function browserAppDeps(): AppDeps {
  const search = globalThis.location?.search ?? "";
  // ?replSync=sab|jspi forces how Python waits for sub-calls (for testing both transports).
  const forced = new URLSearchParams(search).get("replSync");
  const syncMode = forced === "sab" || forced === "jspi" ? forced : "auto";
  // ?replFrame=0|1 keeps Python in the page's own workers, or forces the sandboxed frame (tests).
  const frame = new URLSearchParams(search).get("replFrame");
  const sandboxFrame = frame === "0" ? false : frame === "1" ? true : undefined;
  // ?replFrameStartMs=N: how long a new sandboxed frame may stay silent before it is taken for
  // one that cannot run here (tests of such a frame need not wait out the default 30 s).
  const frameStartMs = Number(new URLSearchParams(search).get("replFrameStartMs"));
  const frameOptions = Number.isFinite(frameStartMs) && frameStartMs > 0 ? { frame: { firstAnswerMs: frameStartMs } } : {};
  return {
    openStore: () => SessionStore.open(),
    createRepl: (onStatus) =>
      createBrowserRepl({ syncMode, onStatus, ...frameOptions, ...(sandboxFrame === undefined ? {} : { sandboxFrame }) }),
    ingest: ingestForSession,
    engines: (settings, update) => new EngineManager(settings, update, globalThis.localStorage ?? null, pageTestSeams()),
    settingsStorage: globalThis.localStorage ?? null,
    download,
    prepareDocument: (blob, meta) => {
      // Errors show when the document is opened; here there is no one to tell.
      documentIndexer()
        .index(blob, indexRequestFor(meta))
        .catch(() => undefined);
    },
  };
}
