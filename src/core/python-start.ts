// Python's start that a run overlaps with its first model request (RlmRunOptions.pending): what
// `context` will be until Python is ready, and whether it turned out as the prompt said.
import { EngineAbortedError } from "../engines/errors.ts";
import type { ContextInfo } from "../repl/protocol.ts";
import type { Repl } from "../repl/types.ts";
import type { PendingPython } from "./run-options.ts";
import { abortable } from "./stop.ts";

/** Whether two descriptions of `context` give the same prompt (encodings are not in it). */
export function sameContextForPrompt(a: ContextInfo | null, b: ContextInfo | null): boolean {
  if (!a || !b) return a === b;
  const keys = (i: ContextInfo) => JSON.stringify(i.keys_preview ?? []);
  return a.type === b.type && a.total_chars === b.total_chars && a.items === b.items && keys(a) === keys(b);
}

export class PythonStart {
  /** Null once the run has waited for it (or there was nothing to wait for). */
  private pending: PendingPython | null;
  /** Whether the start has finished (the run learns it only at its next turn). */
  loaded = false;

  constructor(
    private readonly repl: Repl,
    pending: PendingPython | undefined,
  ) {
    this.pending = pending ?? null;
    this.pending?.ready.then(
      () => (this.loaded = true),
      () => undefined,
    );
  }

  /** Whether the run has not yet waited for Python: no cell, probe or interrupt may touch it. */
  get waiting(): boolean {
    return this.pending !== null;
  }

  /** What `context` is: as Python says, or as it will be while Python is still loading it. */
  context(): ContextInfo | null {
    return this.pending ? this.pending.context : this.repl.contextInfo;
  }

  /**
   * Waits for the start (Stop still stops, through `signal`). True when `context` is not what the
   * first request said it would be: the run then asks again from what Python says.
   */
  async ready(signal: AbortSignal): Promise<boolean> {
    const pending = this.pending;
    if (!pending) return false;
    await abortable(pending.ready, signal, () => new EngineAbortedError());
    this.pending = null;
    return !sameContextForPrompt(pending.context, this.repl.contextInfo);
  }
}
