// REPL workers as browser module workers.
import * as Comlink from "comlink";
import { ReplClient } from "./client.ts";
import { SUBCALL_RELAY_PATH, isSubcallRelayMessage, type ReplWorkerApi, type SubcallRelayAnswer } from "./protocol.ts";
import type { ReplClientOptions, ReplTransport, ReplTransportFactory, SubcallRelay } from "./types.ts";

export const browserReplTransport: ReplTransportFactory = (): ReplTransport => {
  const worker = new Worker(new URL("../../workers/repl.worker.ts", import.meta.url), { type: "module", name: "python-repl" });
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
};

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

export function pyodideIndexUrl(): string {
  return new URL(`${import.meta.env.BASE_URL}pyodide/`, self.location.href).href;
}

export function createBrowserRepl(options: ReplClientOptions = {}): ReplClient {
  return new ReplClient(browserReplTransport, { indexURL: pyodideIndexUrl(), ...options });
}
