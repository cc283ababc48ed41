// A start that is merely slow must not read as stuck: on a fresh visit to a busy machine Python
// has taken over a minute to start, and a bare "starting…" all that time looks like a hang.

/** When a start begins to count as slow, and how often its wait is reported after that. */
const SLOW_START_AFTER_MS = 10_000;
const SLOW_START_EVERY_MS = 5_000;

/** Calls `report` with the whole seconds waited, once the start is slow and then every few seconds; returns the stop. */
export function watchSlowStart(
  report: (waitedSeconds: number) => void,
  afterMs = SLOW_START_AFTER_MS,
  everyMs = SLOW_START_EVERY_MS,
): () => void {
  const began = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const schedule = (ms: number) => {
    timer = setTimeout(tick, ms);
    // In Node a slow start must not be what keeps the process alive.
    (timer as { unref?: () => void }).unref?.();
  };
  const tick = () => {
    report(Math.round((Date.now() - began) / 1000));
    schedule(everyMs);
  };
  schedule(afterMs);
  return () => clearTimeout(timer);
}
