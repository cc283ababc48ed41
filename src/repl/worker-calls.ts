// Calls on a worker that can be torn down under them. Comlink leaves a call on a dead worker
// pending for ever, and whoever waited on it with it: each call here races its worker's end.
import { WorkerGoneError } from "./errors.ts";
import type { ReplTransport } from "./types.ts";

export class WorkerCalls {
  /** Per worker: fails its unanswered calls once it is torn down. */
  private readonly goneSignals = new WeakMap<ReplTransport, { gone: Promise<never>; fire: (reason: string) => void }>();
  /** Calls not answered yet: a heartbeat waits for them (see ReplClient.ensureResponsive). */
  private readonly inFlight = new Set<Promise<unknown>>();

  /** Starts following worker `t`: its calls fail once `tornDown(t)` is called. */
  follow(t: ReplTransport): void {
    let fire!: (reason: string) => void;
    const gone = new Promise<never>((_, reject) => (fire = (reason) => reject(new WorkerGoneError(reason))));
    gone.catch(() => undefined); // only calls in flight care
    this.goneSignals.set(t, { gone, fire });
  }

  /** Worker `t` is gone: its unanswered calls fail with WorkerGoneError(reason). */
  tornDown(t: ReplTransport, reason: string): void {
    this.goneSignals.get(t)?.fire(reason);
  }

  /** A call on worker `t` that fails with WorkerGoneError if `t` is torn down before it answers. */
  call<T>(t: ReplTransport, work: Promise<T>): Promise<T> {
    const gone = this.goneSignals.get(t)?.gone;
    const settled = gone ? Promise.race([work, gone]) : work;
    this.inFlight.add(settled);
    const forget = () => void this.inFlight.delete(settled);
    settled.then(forget, forget);
    return settled;
  }

  /** Resolves once every call made so far has settled. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }
}
