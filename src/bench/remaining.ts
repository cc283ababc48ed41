// How long the rest of a benchmark run will take, from what its finished runs took: each pending
// task × method is counted at the mean time of finished runs of the same method and size, else of
// the same method, else of all. Nothing is assumed before a run has finished.
import type { BenchMethod, BenchResult } from "./types.ts";

export interface PendingRun {
  method: BenchMethod;
  size: number;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Milliseconds the pending runs will probably take, or null before any run has finished. */
export function estimateRemainingMs(pending: readonly PendingRun[], finished: readonly BenchResult[]): number | null {
  if (!finished.length) return null;
  const all = mean(finished.map((r) => r.timeMs));
  const cache = new Map<string, number>();
  const timeFor = (p: PendingRun): number => {
    const key = `${p.method}\u0000${p.size}`;
    let t = cache.get(key);
    if (t === undefined) {
      const same = finished.filter((r) => r.method === p.method && r.size === p.size);
      const method = same.length ? same : finished.filter((r) => r.method === p.method);
      t = method.length ? mean(method.map((r) => r.timeMs)) : all;
      cache.set(key, t);
    }
    return t;
  };
  return pending.reduce((sum, p) => sum + timeFor(p), 0);
}

/** "about 4 min left", "under a minute left". */
export function describeRemaining(ms: number): string {
  if (ms < 60_000) return "under a minute left";
  if (ms < 90 * 60_000) return `about ${Math.round(ms / 60_000)} min left`;
  return `about ${(ms / 3_600_000).toFixed(1)} h left`;
}
