// REPL workers as browser module workers.
import * as Comlink from "comlink";
import { ReplClient } from "./client.ts";
import type { ReplWorkerApi } from "./protocol.ts";
import type { ReplClientOptions, ReplTransport, ReplTransportFactory } from "./types.ts";

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

export function pyodideIndexUrl(): string {
  return new URL(`${import.meta.env.BASE_URL}pyodide/`, self.location.href).href;
}

export function createBrowserRepl(options: ReplClientOptions = {}): ReplClient {
  return new ReplClient(browserReplTransport, { indexURL: pyodideIndexUrl(), ...options });
}
