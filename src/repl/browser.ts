// REPL workers as browser module workers.
import * as Comlink from "comlink";
import { ReplClient } from "./client.ts";
import { SUBCALL_RELAY_PATH, isSubcallRelayMessage, type SubcallRelayAnswer } from "./messages.ts";
import type { ReplWorkerApi, SnapshotSetting } from "./protocol.ts";
import { sandboxFrameSupported, sandboxFrameUsable, startSandboxedWorker, type SandboxFrameOptions } from "./sandbox-frame.ts";
import type { ReplClientOptions, ReplTransport, ReplTransportFactory, SubcallRelay } from "./types.ts";

export interface BrowserReplOptions extends ReplClientOptions {
  /** Where the worker keeps its Python snapshot; default: Cache Storage (see the worker). */
  snapshot?: SnapshotSetting;
  /** Hand later workers the page's compiled pyodide.asm.wasm (default true). */
  shareWasm?: boolean;
  /**
   * Run Python in the sandboxed frame, in a process of its own (default: where the browser
   * isolates it, Chromium; see sandbox-frame.ts). Its workers wait for sub-calls with JSPI, so a
   * forced "sab" sync mode keeps the page's own workers.
   */
  sandboxFrame?: boolean;
  /** How the sandboxed frame is run (see sandbox-frame.ts). */
  frame?: SandboxFrameOptions;
}

function startWorker(): ReplTransport {
  const worker = new Worker(new URL("../../workers/browser/repl.worker.ts", import.meta.url), { type: "module", name: "python-repl" });
  const exitListeners: Array<(reason: string) => void> = [];
  let booted = false;
  worker.addEventListener("error", (event) => {
    // Pyodide re-raises an interrupted cell's KeyboardInterrupt as an uncaught worker error;
    // the cell itself already reported it, so keep it out of the console. Other uncaught
    // errors do not mean the worker is dead; a worker that fails to load at all is.
    event.preventDefault();
    if (!booted) for (const l of exitListeners) l(event.message || "the Python worker script failed to load");
  });
  worker.addEventListener("message", () => (booted = true), { once: true });
  const api = Comlink.wrap<ReplWorkerApi>(worker);
  return {
    api,
    openSubcallRelay,
    transfer: (value, transferables) => Comlink.transfer(value, transferables),
    terminate() {
      api[Comlink.releaseProxy]();
      worker.terminate();
    },
    onExit(listener) {
      exitListeners.push(listener);
    },
  };
}

/**
 * Workers for one page. The page compiles pyodide.asm.wasm itself, once, in the background, and
 * every worker started after that instantiates the compiled Module instead of fetching and
 * compiling 9.6 MB again (and shares its machine code). The Module comes from the page, never
 * from a worker: a worker runs model-written code, and a Module it sent could run in the next
 * session's sandbox.
 */
function browserReplTransportFactory(
  options: { snapshot?: SnapshotSetting; shareWasm?: boolean; sandboxFrame?: boolean; frame?: SandboxFrameOptions } = {},
): ReplTransportFactory {
  return () => {
    // A frame that could not start here once will not start the next time either.
    if (options.sandboxFrame && sandboxFrameUsable())
      return startSandboxedWorker(pyodideIndexUrl(), appBaseUrl(), options.snapshot, options.frame);
    const transport = startWorker();
    const wasmModule = options.shareWasm === false ? undefined : pageWasmModule();
    transport.bootOptions = {
      ...(options.snapshot ? { snapshot: options.snapshot } : {}),
      ...(wasmModule ? { wasmModule } : {}),
    };
    return transport;
  };
}

interface PageWasm {
  module: WebAssembly.Module | null;
  done: Promise<WebAssembly.Module | null>;
}
let compiled: PageWasm | null = null;

/** The page's compiled pyodide.asm.wasm, once it is compiled (null if that failed). Starts compiling it. */
export function sharedWasmModule(): Promise<WebAssembly.Module | null> {
  if (!compiled) {
    const state: PageWasm = { module: null, done: Promise.resolve(null) };
    state.done = WebAssembly.compileStreaming(fetch(new URL("pyodide.asm.wasm", pyodideIndexUrl()))).then(
      (module) => (state.module = module),
      (err: unknown) => {
        console.warn("Could not compile pyodide.asm.wasm for sharing; each Python worker compiles its own.", err);
        return null;
      },
    );
    compiled = state;
  }
  return compiled.done;
}

let workersStarted = 0;

/**
 * The compiled Module if the page has it by now. The page starts compiling it when a second
 * worker is asked for, not with the first: on a first visit the first worker's own start would
 * otherwise compete with it for the CPU, and a page with one REPL never needs it.
 */
function pageWasmModule(): WebAssembly.Module | undefined {
  if (typeof WebAssembly.compileStreaming !== "function") return undefined;
  if (++workersStarted >= 2) void sharedWasmModule();
  return compiled?.module ?? undefined;
}

/**
 * The page's half of the service-worker route (src/sw.ts has the other): the service worker
 * asks every page it controls, and only the page holding the token answers. Feature-detected:
 * without service workers (an insecure context) there is no route. On a first visit the
 * service worker takes control while Python boots (clients.claim), so the route is offered
 * before it works; a sub-call made before then returns an error that says to reload.
 */
function openSubcallRelay(answer: (request: string) => Promise<string>): SubcallRelay | undefined {
  const container = typeof navigator === "object" ? navigator.serviceWorker : undefined;
  if (!container) return undefined;
  const token = crypto.randomUUID();
  const onMessage = (event: MessageEvent) => {
    const port = event.ports[0];
    if (!port || !isSubcallRelayMessage(event.data)) return;
    if (event.data.token !== token) return port.postMessage({ owned: false } satisfies SubcallRelayAnswer);
    void answer(event.data.request).then((reply) => port.postMessage({ owned: true, reply } satisfies SubcallRelayAnswer));
  };
  container.addEventListener("message", onMessage);
  // Messages from the service worker wait in a queue until the page says it listens.
  container.startMessages();
  return {
    url: new URL(`${import.meta.env.BASE_URL}${SUBCALL_RELAY_PATH}${token}`, self.location.href).href,
    close: () => container.removeEventListener("message", onMessage),
  };
}

function appBaseUrl(): string {
  return new URL(import.meta.env.BASE_URL, self.location.href).href;
}

export function pyodideIndexUrl(): string {
  return new URL(`${import.meta.env.BASE_URL}pyodide/`, self.location.href).href;
}

export function createBrowserRepl(options: BrowserReplOptions = {}): ReplClient {
  const { snapshot, shareWasm, sandboxFrame, frame, ...clientOptions } = options;
  const framed = (sandboxFrame ?? sandboxFrameSupported()) && clientOptions.syncMode !== "sab";
  const factory = browserReplTransportFactory({
    ...(snapshot ? { snapshot } : {}),
    ...(shareWasm === undefined ? {} : { shareWasm }),
    sandboxFrame: framed,
    ...(frame ? { frame } : {}),
  });
  return new ReplClient(factory, {
    indexURL: pyodideIndexUrl(),
    ...clientOptions,
  });
}
