// Status lines that say what is really happening, in words (never colour alone). "The model is
// exploring the document" was shown while the model sat at 0 % loading (issue 15).
import type { EngineStatus } from "../engines/descriptor.ts";
import { engineDescriptor, type EngineId } from "../engines/registry.ts";
import type { Exchange } from "./run-view.ts";

/** What a running question is doing now, including the model's download while it waits for it. */
export function waitingText(exchange: Pick<Exchange, "waitingFor" | "turns">, engine: EngineStatus): string {
  switch (exchange.waitingFor) {
    case "python":
      return "Waiting for Python to start…";
    case "documents":
      return "Loading the documents into Python…";
    case "model":
      if (engine.state === "loading") return `Waiting for the model: ${Math.round(engine.progress * 100)}% loaded. ${engine.detail}`.trim();
      if (engine.state === "connecting") return "Connecting to the model server…";
      return "Waiting for the model…";
  }
  // Not waiting, but no turn yet: the run has only just been asked for.
  return exchange.turns.length ? "The model is exploring the document…" : "Starting…";
}

/** The model chip's words: which model, and whether it can answer now. */
export function engineChipText(status: EngineStatus, backend: EngineId, download?: "complete" | "partial" | "none"): string {
  const words = engineDescriptor(backend).words;
  switch (status.state) {
    case "ready":
      return `${status.label} · ${words.ready}`;
    case "loading":
      return `${status.label} · loading ${Math.round(status.progress * 100)}%`;
    case "connecting":
      return `${status.label} · checking…`;
    case "error":
      return `${status.label} · ${words.failed}`;
    case "idle":
      if (!download) return status.label;
      return `${status.label} · ${download === "complete" ? "downloaded, not loaded" : download === "partial" ? "partly downloaded" : "not downloaded"}`;
  }
}
