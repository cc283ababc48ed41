// A cell's time limit counts Python's own time. While Python waits for the model (an llm_query or
// rlm_query the host is answering) the clock stands still: that wait is the model's, bounded by
// the question's own time limit and by Stop, and on a local CPU model one sub-call over a
// 2,000-token chunk takes a minute or more (bench/RESULTS.md). Counting it would stop every cell
// that reads a document in pieces, on exactly the engines that run everywhere.

export class CellClock {
  private remainingMs: number;
  private runningSince: number | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private modelWaits = 0;
  private expired = false;

  /** `limitMs` of 0 or less: no limit. `onExpire` runs once, when Python's own time reaches it. */
  constructor(
    limitMs: number | undefined,
    private readonly onExpire: () => void,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.remainingMs = limitMs && limitMs > 0 ? limitMs : Infinity;
    this.run();
  }

  get timedOut(): boolean {
    return this.expired;
  }

  /** Python asked the host for a model answer: its time stops counting until the reply. */
  modelWaitBegan(): void {
    if (this.modelWaits++ === 0) this.pause();
  }

  modelWaitEnded(): void {
    if (this.modelWaits > 0 && --this.modelWaits === 0) this.run();
  }

  dispose(): void {
    this.pause();
    this.remainingMs = Infinity;
  }

  private run(): void {
    if (this.expired || this.runningSince !== null || this.remainingMs === Infinity) return;
    this.runningSince = this.now();
    this.timer = setTimeout(() => {
      this.expired = true;
      this.runningSince = null;
      this.onExpire();
    }, this.remainingMs);
  }

  private pause(): void {
    if (this.runningSince === null) return;
    clearTimeout(this.timer);
    this.remainingMs = Math.max(0, this.remainingMs - (this.now() - this.runningSince));
    this.runningSince = null;
  }
}
