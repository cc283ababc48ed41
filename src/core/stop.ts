// Why a question's run must end early, decided once. The first reason wins: a Stop pressed after
// the time limit tripped must not turn an "out of time" best answer into "stopped", and vice versa.

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
