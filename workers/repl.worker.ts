// The REPL as a browser module worker. Model-written code runs here, so after Pyodide has
// loaded, the worker drops every way to reach the network it does not need; the worker
// script's Content-Security-Policy (set by the server, see vite.config.ts) is the real wall.
import * as Comlink from "comlink";
import pythonSource from "./python/rlm_runtime.py?raw";
import { createReplWorker } from "./repl-runtime.ts";

const NETWORK_GLOBALS = [
  "fetch",
  "XMLHttpRequest",
  "WebSocket",
  "WebSocketStream",
  "EventSource",
  "WebTransport",
  "importScripts",
  "Worker",
  "SharedWorker",
  "BroadcastChannel",
  "caches",
  "indexedDB",
  "Request",
] as const;

function lockDown(): void {
  const scope = self as unknown as Record<string, unknown>;
  for (const name of NETWORK_GLOBALS) {
    try {
      Object.defineProperty(scope, name, { value: undefined, configurable: false, writable: false });
    } catch {
      // Some globals cannot be redefined; the CSP still blocks what they would do.
    }
  }
  const nav = (self as unknown as { navigator?: Record<string, unknown> }).navigator;
  if (nav) {
    for (const name of ["sendBeacon", "serviceWorker", "storage"]) {
      try {
        Object.defineProperty(nav, name, { value: undefined, configurable: false });
      } catch {
        // as above
      }
    }
  }
}

Comlink.expose(createReplWorker({ pythonSource, afterBoot: lockDown }));
