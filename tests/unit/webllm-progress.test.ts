import { describe, expect, it } from "vitest";
import { LoadProgressTracker, formatDuration, parseProgressText } from "../../src/engines/webllm/progress.ts";

const MB = 1024 * 1024;

// The exact strings WebLLM 0.2.86 builds (lib/index.js, fetchTensorCacheInternal / shader loader).
function fetching(i: number, n: number, mb: number, pct: number, secs: number): string {
  return (
    `Fetching param cache[${i}/${n}]: ${mb}MB fetched. ${pct}% completed, ${secs} secs elapsed.` +
    " It can take a while when we first visit this page to populate the cache. Later refreshes will become faster."
  );
}
function fromCache(i: number, n: number, mb: number, pct: number, secs: number): string {
  return `Loading model from cache[${i}/${n}]: ${mb}MB loaded. ${pct}% completed, ${secs} secs elapsed.`;
}

describe("parseProgressText", () => {
  it("reads a download report: shard, bytes, percent, seconds, and total from the exact ratio", () => {
    const p = parseProgressText({ progress: 0.0625, timeElapsed: 12, text: fetching(3, 40, 120, 6, 12) });
    expect(p).toEqual({
      phase: "downloading",
      shard: { index: 3, count: 40 },
      loadedBytes: 120 * MB,
      totalBytes: 1920 * MB,
      percent: 6,
      seconds: 12,
    });
  });

  it("tells loading-from-cache, shader compilation, start and finish apart", () => {
    expect(parseProgressText({ progress: 0.5, timeElapsed: 3, text: fromCache(20, 40, 960, 50, 3) })).toMatchObject({
      phase: "loading-from-cache",
      loadedBytes: 960 * MB,
      totalBytes: 1920 * MB,
      percent: 50,
    });
    expect(
      parseProgressText({ progress: 0.25, timeElapsed: 4, text: "Loading GPU shader modules[10/40]: 25% completed, 4 secs elapsed." }),
    ).toEqual({ phase: "compiling-shaders", shard: { index: 10, count: 40 }, percent: 25, seconds: 4 });
    expect(parseProgressText({ progress: 0, timeElapsed: 0, text: "Start to fetch params" }).phase).toBe("starting");
    expect(parseProgressText({ progress: 1, timeElapsed: 9, text: "Finish loading on WebGPU - google" })).toEqual({
      phase: "ready",
      percent: 100,
      gpuLabel: "WebGPU - google",
    });
  });

  it("falls back to the numeric progress for text it does not know", () => {
    expect(parseProgressText({ progress: 0.42, timeElapsed: 1, text: "Something new" })).toEqual({ phase: "other", percent: 42 });
  });
});

describe("LoadProgressTracker", () => {
  it("computes speed and time left from successive download reports", () => {
    const t = new LoadProgressTracker();
    // total = 2000 MB
    t.update({ progress: 0.05, timeElapsed: 5, text: fetching(4, 40, 100, 5, 5) }, 10_000);
    const s = t.update({ progress: 0.07, timeElapsed: 7, text: fetching(6, 40, 140, 7, 7) }, 12_000);
    expect(s.phase).toBe("downloading");
    expect(s.bytesPerSecond).toBeCloseTo(20 * MB, 0);
    expect(s.secondsLeft).toBeCloseTo(93, 0); // (2000 − 140) MB at 20 MB/s
    expect(s.fromCache).toBe(false);
    expect(s.message).toBe("Downloading the model: 7% (140 MB of 2.0 GB, 20 MB/s, about 2 min left)");
  });

  it("forgets reports older than 10 s, so the speed follows the current rate", () => {
    const t = new LoadProgressTracker();
    t.update({ progress: 0.01, timeElapsed: 1, text: fetching(1, 100, 10, 1, 1) }, 0);
    t.update({ progress: 0.5, timeElapsed: 20, text: fetching(50, 100, 500, 50, 20) }, 20_000); // old sample dropped
    const s = t.update({ progress: 0.51, timeElapsed: 25, text: fetching(51, 100, 510, 51, 25) }, 25_000);
    expect(s.bytesPerSecond).toBeCloseTo(2 * MB, 0); // 10 MB in 5 s, not 500 MB in 25 s
  });

  it("says 'from the browser cache' when no download happened, and not after a download", () => {
    const cached = new LoadProgressTracker();
    cached.update({ progress: 0, timeElapsed: 0, text: "Start to fetch params" }, 0);
    const c = cached.update({ progress: 0.3, timeElapsed: 1, text: fromCache(12, 40, 576, 30, 1) }, 1000);
    expect(c.fromCache).toBe(true);
    expect(c.message).toMatch(/from the browser cache \(no download needed\): 30%/);
    expect(c.bytesPerSecond).toBeUndefined();

    const downloaded = new LoadProgressTracker();
    downloaded.update({ progress: 1, timeElapsed: 60, text: fetching(40, 40, 1920, 100, 60) }, 0);
    const d = downloaded.update({ progress: 0.3, timeElapsed: 1, text: fromCache(12, 40, 576, 30, 1) }, 1000);
    expect(d.fromCache).toBe(false);
    expect(d.message).toMatch(/Moving the downloaded model to the GPU/);
  });

  it("formats durations", () => {
    expect(formatDuration(0.2)).toBe("1 s");
    expect(formatDuration(125)).toBe("2 min");
    expect(formatDuration(3 * 3600 + 600)).toBe("3 h 10 min");
  });
});
