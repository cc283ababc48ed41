// The host's end of the private port between the page and the REPL worker's own JS. Python can
// reach the worker's globals, not this port (it is held in closures on both sides), so what
// travels here cannot be intercepted by model code in flight:
//   host → worker: a number (a heartbeat); the worker answers with the same number once the
//                   work already queued in it has run.
//   worker → host: { started: id } when the worker takes cell `id`, and { id, result } with
//                   the result Python returned. Both are sent by the worker's own code, never by
//                   Python (model code could otherwise post a result of its own ahead of the real
//                   one): a start that never comes means work an earlier cell left behind holds
//                   the worker. Work a cell that did not await leaves queued runs only after
//                   its result is out (workers/shared/repl-runtime.ts), and the heartbeat after
//                   the cell finds it; a cell that awaits or waits on a sub-call under JSPI can
//                   have such work run first, and that wedge is found at the cell's time limit.
// Everything that arrives is checked, like every other message from the worker. The shapes are
// HostToPulse and PulseToHost (messages.ts).
import type { HostToPulse } from "./messages.ts";

type Waiter = (data: unknown) => boolean;

export class WorkerPulse {
  private seq = 0;
  private readonly waiters = new Set<Waiter>();

  constructor(
    private readonly port: MessagePort,
    private readonly timeoutMs: number,
  ) {
    port.onmessage = (event: MessageEvent) => {
      for (const waiter of [...this.waiters]) if (waiter(event.data)) this.waiters.delete(waiter);
    };
  }

  /** True if the worker answers within the timeout: its event loop is free and it is there. */
  alive(): Promise<boolean> {
    const nonce = ++this.seq;
    const answered = this.next((d) => d === nonce, this.timeoutMs);
    this.port.postMessage(nonce satisfies HostToPulse);
    return answered.then((d) => d !== undefined);
  }

  /** Resolves with `why` if Python does not start cell `id` in time; stays pending otherwise. */
  startedOrWedged(id: number, why: string): Promise<{ gone: string }> {
    return new Promise((resolve) => {
      void this.next((d) => isRecord(d) && d.started === id, this.timeoutMs).then((d) => {
        if (d === undefined) resolve({ gone: why });
      });
    });
  }

  /** Cell `id`'s result text as the worker sent it once Python returned it; pending until then. */
  result(id: number): Promise<string> {
    return new Promise((resolve) => {
      void this.next((d) => isRecord(d) && d.id === id && typeof d.result === "string").then((d) =>
        resolve((d as { result: string }).result),
      );
    });
  }

  /** Forgets every wait (a new cell, or the worker is gone). */
  reset(): void {
    this.waiters.clear();
  }

  close(): void {
    this.reset();
    this.port.close();
  }

  /** The next message that `match` accepts, or undefined after `timeoutMs` (if given). */
  private next(match: (data: unknown) => boolean, timeoutMs?: number): Promise<unknown> {
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const waiter: Waiter = (data) => {
        if (!match(data)) return false;
        clearTimeout(timer);
        resolve(data);
        return true;
      };
      this.waiters.add(waiter);
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          this.waiters.delete(waiter);
          resolve(undefined);
        }, timeoutMs);
      }
    });
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null;
}
