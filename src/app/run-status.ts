// Status lines that say what is really happening, in words (never colour alone). "The model is
// exploring the document" was shown while the model sat at 0 % loading (issue 15).
import type { EngineStatus } from "../engines/descriptor.ts";
import { engineDescriptor, type EngineId } from "../engines/registry.ts";
import type { Exchange } from "./run-view.ts";

/** What a running question is doing now, including the model's download while it waits for it. */
export function waitingText(exchange: Pick<Exchange, "waitingFor" | "turns" | "mode">, engine: EngineStatus): string {
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
  if (!exchange.turns.length) return "Starting…";
  return exchange.mode?.used === "direct"
    ? "The model is answering in one call, with the whole document in its prompt…"
    : "The model is exploring the document…";
}

/** How much of a local model is in this browser; undefined when it does not apply or is not known yet. */
export type Download = "complete" | "partial" | "none" | undefined;

/** The model chip's words: which model, and whether it can answer now. */
export function engineChipText(status: EngineStatus, backend: EngineId, download?: Download): string {
  const state = engineStateWords(status, backend, download);
  return state ? `${status.label} · ${state}` : status.label;
}

/** Whether the model can answer now, in words ("connected", "not reachable", "kept, not loaded"); null when nothing is known. */
export function engineStateWords(status: EngineStatus, backend: EngineId, download?: Download): string | null {
  const words = engineDescriptor(backend).words;
  switch (status.state) {
    case "ready":
      return words.ready;
    case "loading":
      return `loading ${Math.round(status.progress * 100)}%`;
    case "connecting":
      return "checking…";
    case "error":
      return status.brief ?? words.failed;
    case "idle":
      if (!download) return null;
      return download === "complete"
        ? (words.kept ?? "downloaded, not loaded")
        : download === "partial"
          ? "partly downloaded"
          : "not downloaded";
  }
}

/**
 * The chosen model as every view shows it: the header chip's words and colour, the start's model
 * step and whether a question can go. One function, so the chip and the step cannot disagree: the
 * chip was green and the step ticked after a question failed on an unreachable endpoint, and the
 * step was ticked for a model that was not downloaded (issue 28).
 */
export interface ModelView {
  /** The chip's words: `label · state`. */
  text: string;
  /** Which model; on a narrow screen this is what gets shortened, never the state. */
  label: string;
  /** Whether it can answer, in words; null when nothing is known yet. */
  state: string | null;
  /** The chip's dot: green only when the model answered or loaded; red when it cannot answer. */
  tone: "ok" | "busy" | "err" | "none";
  /**
   * The start's model step is done: the endpoint answered and offers the model, or the local
   * model is loaded, or kept in this browser and not known to fail.
   */
  done: boolean;
  /** A question can be sent now (it may still have to load or download the model first). */
  canAsk: boolean;
}

export function modelView(
  status: EngineStatus,
  backend: EngineId,
  facts: { download: Download; missing: boolean; available: boolean | null },
): ModelView {
  const usable = !facts.missing && facts.available === true;
  const tone = status.state === "ready" ? "ok" : status.state === "error" ? "err" : status.state === "idle" ? "none" : "busy";
  const works = status.state === "ready" || (status.state === "idle" && facts.download === "complete");
  return {
    text: engineChipText(status, backend, facts.download),
    label: status.label,
    state: engineStateWords(status, backend, facts.download),
    tone,
    done: usable && works,
    canAsk: usable && status.state !== "error",
  };
}
