// A model call that waits its turn on an engine's queue and can be stopped at any moment. Stop
// settles the call at once with EngineAbortedError; a call that is running is also interrupted
// in its worker, and one still queued never starts. The page's in-worker engines (WebLLM,
// llama.cpp) share it: both run one request at a time and answer Stop within a token.
import { EngineAbortedError } from "./errors.ts";
import type { Limiter } from "./limiter.ts";

export interface QueuedCall<T> {
  queue: Limiter;
  signal: AbortSignal | undefined;
  /** Interrupts the running call in its worker (best effort: the call is settled either way). */
  interrupt(): Promise<unknown>;
  /** The call itself; `live()` turns false once it is settled, so late tokens can be dropped. */
  run(live: () => boolean): Promise<T>;
  /** What a failure of `run` becomes for the caller (the engine's own error classes). */
  mapError(err: unknown): Error | Promise<Error>;
}

export function queuedCall<T>(call: QueuedCall<T>): Promise<T> {
  const { signal } = call;
  if (signal?.aborted) return Promise.reject(new EngineAbortedError());
  return new Promise<T>((resolve, reject) => {
    let running = false;
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      fn();
    };
    const onAbort = () => {
      // Only the running request is interrupted; a queued one just never starts.
      if (running) void call.interrupt().catch(() => undefined);
      settle(() => reject(new EngineAbortedError()));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    void call.queue
      .run(async () => {
        if (settled || signal?.aborted) return;
        running = true;
        try {
          const result = await call.run(() => !settled);
          settle(() => resolve(result));
        } catch (err) {
          const mapped = await call.mapError(err);
          settle(() => reject(mapped));
        } finally {
          running = false;
          signal?.removeEventListener("abort", onAbort);
        }
      })
      .catch((err: unknown) => settle(() => reject(err))); // nothing above should throw; never leave it unhandled
  });
}

/** `onToken` for as long as the call is live (a token that arrives after Stop is dropped), or none. */
export function whileLive(onToken: ((delta: string) => void) | undefined, live: () => boolean): ((delta: string) => void) | undefined {
  return onToken
    ? (delta) => {
        if (live()) onToken(delta);
      }
    : undefined;
}
