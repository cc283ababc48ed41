// Why a question's run must end early, decided once. The first reason wins: a Stop pressed after
// the time limit tripped must not turn an "out of time" best answer into "stopped", and vice versa.

import type { CellResult } from "../repl/protocol.ts";
import { emptyCellResult } from "./cell-result.ts";

export type StopReason = "user" | "timeout";

export class StopSignal {
  reason: StopReason | null = null;
  private readonly controller = new AbortController();

  /** Aborts every model call and sub-call of the run once tripped. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  trip(reason: StopReason): void {
    if (this.reason) return;
    this.reason = reason;
    this.controller.abort();
  }
}

/**
 * `work`, or a rejection with `stopped()` as soon as `signal` aborts (the work itself goes on:
 * what it was waiting for is not ours to cancel).
 */
export function abortable<T>(work: Promise<T>, signal: AbortSignal, stopped: () => Error): Promise<T> {
  if (signal.aborted) return Promise.reject(stopped());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(stopped());
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** After Stop, how long a cell may take to end by itself before the run stops without it. */
const STOP_GRACE_MS = 1000;

/**
 * Resolves STOP_GRACE_MS after the run is stopped: Stop must end the run promptly even when the
 * REPL needs longer (a worker being killed and rebuilt finishes in the background).
 */
export function stoppedAfterGrace(signal: AbortSignal): Promise<CellResult> {
  return new Promise((resolve) => {
    const stopped = () =>
      setTimeout(
        () =>
          resolve(
            emptyCellResult({
              stderr: "KeyboardInterrupt: the run was stopped while this cell was running.\n",
              error: "KeyboardInterrupt",
              interrupted: true,
            }),
          ),
        STOP_GRACE_MS,
      );
    if (signal.aborted) stopped();
    else signal.addEventListener("abort", stopped, { once: true });
  });
}

/** The longest delay a timer takes (Node fires a longer one at once): about 24.8 days. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Aborts when `deadline` (epoch ms) comes: the time left as a whole, timer-sized number of milliseconds. */
export function signalAt(deadline: number): AbortSignal {
  return AbortSignal.timeout(Math.min(MAX_TIMER_MS, Math.max(0, Math.ceil(deadline - Date.now()))));
}
