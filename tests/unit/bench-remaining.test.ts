// The Benchmark page's time left comes from the runs that finished, never from an assumption.
import { describe, expect, it } from "vitest";
import { describeRemaining, estimateRemainingMs } from "../../src/bench/remaining.ts";
import type { BenchResult } from "../../src/bench/types.ts";

const done = (method: BenchResult["method"], size: number, timeMs: number) => ({ method, size, timeMs }) as BenchResult;

describe("time left in a benchmark run", () => {
  it("is unknown before a run has finished", () => {
    expect(estimateRemainingMs([{ method: "rlm", size: 28_000 }], [])).toBeNull();
  });

  it("counts each pending run at what runs of its method and size took, else its method, else all", () => {
    const finished = [done("rlm", 28_000, 4000), done("rlm", 28_000, 6000), done("vanilla", 28_000, 1000), done("rlm", 112_000, 20_000)];
    expect(estimateRemainingMs([{ method: "rlm", size: 28_000 }], finished)).toBe(5000);
    expect(estimateRemainingMs([{ method: "vanilla", size: 112_000 }], finished)).toBe(1000);
    expect(estimateRemainingMs([{ method: "rlm", size: 448_000 }], finished)).toBe(10_000);
    expect(estimateRemainingMs([{ method: "vanilla", size: 8 }], [done("rlm", 28_000, 3000)])).toBe(3000);
    expect(estimateRemainingMs([], finished)).toBe(0);
  });

  it("reads as a person would say it", () => {
    expect(describeRemaining(20_000)).toBe("under a minute left");
    expect(describeRemaining(4.4 * 60_000)).toBe("about 4 min left");
    expect(describeRemaining(3 * 3_600_000)).toBe("about 3.0 h left");
  });
});
