// Samples a number every few milliseconds and keeps the largest value seen: peak memory of a
// step that runs elsewhere (a worker thread, another process) while this thread is idle.
export interface PeakSampler {
  /** The largest sample since start (including one taken at stop). */
  stop(): number;
}

export function samplePeak(read: () => number, intervalMs = 20): PeakSampler {
  let peak = read();
  const timer = setInterval(() => {
    const v = read();
    if (v > peak) peak = v;
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      peak = Math.max(peak, read());
      return peak;
    },
  };
}

export const MB = 2 ** 20;
export const mb = (bytes: number) => `${Math.round(bytes / MB).toLocaleString("en-US")}`;
