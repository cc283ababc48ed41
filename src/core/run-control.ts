// How a run is told to end early and what it reports about itself: the person's Stop, the
// shared clock, errors turned into endings, and its events tagged with its depth. One place, so
// "stopped" and "out of time" are decided the same way at every step of the loop.
import { EngineAbortedError } from "../engines/errors.ts";
import type { SubcallHandler } from "../repl/types.ts";
import type { PythonStart } from "./python-start.ts";
import { RunDeadline } from "./run-deadline.ts";
import { STOPPED, errorText, type Ending } from "./run-ending.ts";
import type { RlmRunOptions } from "./run-options.ts";
import { StopSignal } from "./stop.ts";
import type { Emit, SharedRunState } from "./subcalls.ts";
import type { RlmEvent } from "./types.ts";

export class RunControl {
  readonly stop = new StopSignal();
  readonly deadline: RunDeadline;

  constructor(
    private readonly o: Pick<RlmRunOptions, "signal" | "repl" | "config" | "onEvent" | "internal">,
    private readonly shared: SharedRunState,
    private readonly python: PythonStart,
  ) {
    this.deadline = new RunDeadline(shared, () => {
      this.stop.trip("timeout");
      this.interruptPython();
    });
  }

  /** Every event of the run, tagged with its depth and parent; a broken listener must not break the run. */
  readonly emit: Emit = (event) => {
    const parent = this.o.internal?.parentSubcallId;
    const full = { ...event, depth: this.o.internal?.depth ?? 0, ...(parent ? { parentSubcallId: parent } : {}) } as RlmEvent;
    try {
      this.o.onEvent?.(full);
    } catch {
      // A broken listener must not break the run.
    }
  };

  /** Listens for Stop, starts the clock, and takes the REPL's sub-calls for this run. */
  begin(subcalls: SubcallHandler): void {
    const { signal, repl } = this.o;
    if (signal?.aborted) this.onUserAbort();
    signal?.addEventListener("abort", this.onUserAbort);
    this.deadline.arm();
    repl.setSubcallHandler(subcalls);
  }

  end(): void {
    this.deadline.clear();
    this.o.signal?.removeEventListener("abort", this.onUserAbort);
    this.o.repl.setSubcallHandler(null);
  }

  /** Before each turn: an ending if Stop was pressed or the time is up. */
  stopOrDeadline(): Ending | null {
    if (this.stop.reason === "user") return STOPPED;
    if (this.stop.reason === "timeout" || Date.now() >= this.shared.deadline) return this.outOfTime();
    return null;
  }

  timeLimit(): string {
    return `${Math.round(this.o.config.maxWallTimeMs / 1000)} s time limit`;
  }

  outOfTime(): Ending {
    const why = `The ${this.timeLimit()} was reached.`;
    return { kind: "limit", status: "out-of-time", why, cause: "it ran out of time" };
  }

  /** What an error thrown out of a turn means: Stop and the clock come first, whatever was thrown. */
  endingFor(err: unknown): Ending {
    if (this.stop.reason === "user") return STOPPED;
    if (this.stop.reason === "timeout") return this.outOfTime();
    if (err instanceof EngineAbortedError) return STOPPED;
    return { kind: "failed", message: errorText(err) };
  }

  private readonly onUserAbort = () => {
    this.stop.trip("user");
    this.interruptPython();
  };

  /** Stops the running cell; while Python is still loading the documents there is none to stop. */
  private interruptPython(): void {
    if (!this.python.waiting) this.o.repl.interrupt();
  }
}
