/** A counting semaphore: at most `limit` tasks run at once, the rest wait in FIFO order. */
export class Limiter {
  private active = 0;
  private readonly queue: Array<() => void> = [];

  constructor(private readonly limit: number) {
    if (!(limit >= 1)) throw new RangeError("Limiter needs a limit of at least 1");
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active < this.limit) this.active += 1;
    else await new Promise<void>((resolve) => this.queue.push(resolve)); // the slot is handed over
    try {
      return await task();
    } finally {
      const next = this.queue.shift();
      if (next) next();
      else this.active -= 1;
    }
  }
}
