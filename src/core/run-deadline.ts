// The run's clock: it stops the run at the deadline all runs of a question share. Kept apart
// because the deadline moves: the time the person takes to answer a question the run asks is
// not the run's own.
import type { SharedRunState } from "./subcalls.ts";

export class RunDeadline {
  private timer: ReturnType<typeof setTimeout> | undefined;

  /** `expire`: what the run does when the time is up (trip its stop, interrupt Python). */
  constructor(
    private readonly shared: SharedRunState,
    private readonly expire: () => void,
  ) {}

  arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(this.expire, Math.max(0, this.shared.deadline - Date.now()));
  }

  clear(): void {
    clearTimeout(this.timer);
  }

  /** `wait` (the person being asked) does not count: the deadline moves on by its length. */
  async pausedDuring<T>(wait: () => Promise<T>): Promise<T> {
    this.clear();
    const started = Date.now();
    try {
      return await wait();
    } finally {
      this.shared.deadline += Date.now() - started;
      this.arm();
    }
  }
}
