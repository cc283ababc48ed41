import { describe, expect, it } from "vitest";
import { describeEstimate, effortOf, estimateEffort, PRESETS, withEffort } from "../../src/app/presets.ts";
import { DEFAULT_SETTINGS, toRlmConfig } from "../../src/app/settings.ts";

const big = { docChars: 2_000_000, rootWindow: 8192, backend: "openai" as const, mode: "auto" as const };

describe("effort presets", () => {
  it("the defaults are Thorough, and a changed limit is custom", () => {
    expect(effortOf(DEFAULT_SETTINGS.run)).toBe("thorough");
    expect(effortOf({ ...DEFAULT_SETTINGS.run, maxSubcalls: 7 })).toBe("custom");
  });

  it("map onto what a run is given (turns, sub-calls, time, depth), keeping the rest", () => {
    const s = { ...DEFAULT_SETTINGS, run: { ...DEFAULT_SETTINGS.run, seed: 3 } };
    const quick = toRlmConfig(withEffort(s, "quick"));
    expect([quick.maxIterations, quick.maxSubcalls, quick.maxWallTimeMs, quick.maxDepth]).toEqual([6, 20, 180_000, 1]);
    expect(quick.seed).toBe(3);
    expect(effortOf(withEffort(s, "exhaustive").run)).toBe("exhaustive");
  });

  it("estimate more time and tokens for more effort, within each preset's limits", () => {
    const [q, t, x] = (["quick", "thorough", "exhaustive"] as const).map((e) => estimateEffort(e, big));
    expect(q!.tokens).toBeLessThan(t!.tokens);
    expect(t!.tokens).toBeLessThan(x!.tokens);
    expect(q!.subcalls).toBeLessThanOrEqual(PRESETS.quick.maxSubcalls);
    expect(x!.seconds).toBeLessThanOrEqual(PRESETS.exhaustive.maxTimeS);
    expect(q!.mode).toBe("rlm");
  });

  it("a document that fits the window is one direct call in auto mode", () => {
    const e = estimateEffort("thorough", { ...big, docChars: 4000 });
    expect(e).toMatchObject({ mode: "direct", subcalls: 0, turns: 1 });
    expect(describeEstimate(e)).toMatch(/^≈ \d+ s · ≈ [\d.]+K? tokens · one direct call$/);
    expect(estimateEffort("thorough", { ...big, docChars: 4000, mode: "rlm" }).mode).toBe("rlm");
  });

  it("a local model is estimated slower than a server for the same work", () => {
    const mid = { ...big, docChars: 100_000 };
    expect(estimateEffort("thorough", { ...mid, backend: "webllm" }).seconds).toBeGreaterThan(estimateEffort("thorough", mid).seconds);
  });
});
