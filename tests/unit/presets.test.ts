import { describe, expect, it } from "vitest";
import {
  EFFORTS,
  effortOf,
  effortOfLimits,
  effortView,
  limitsDetail,
  limitsText,
  measuredRuns,
  PRESETS,
  withEffort,
} from "../../src/app/presets.ts";
import { newExchange, type Exchange } from "../../src/app/run-view.ts";
import { DEFAULT_SETTINGS, toRlmConfig } from "../../src/app/settings.ts";

describe("effort presets", () => {
  it("the defaults are Thorough, and a changed limit is custom", () => {
    expect(effortOf(DEFAULT_SETTINGS.run)).toBe("thorough");
    expect(effortOf({ ...DEFAULT_SETTINGS.run, maxSubcalls: 7 })).toBe("custom");
  });

  it("map onto what a run is given (turns, sub-calls, time, depth), keeping the rest", () => {
    const s = { ...DEFAULT_SETTINGS, run: { ...DEFAULT_SETTINGS.run, seed: 3 } };
    const quick = toRlmConfig(withEffort(s, "quick"));
    expect([quick.maxIterations, quick.maxSubcalls, quick.maxWallTimeMs, quick.maxDepth]).toEqual([6, 20, 180_000, 1]);
    expect(quick.sampling?.seed).toBe(3);
    expect(effortOf(withEffort(s, "exhaustive").run)).toBe("exhaustive");
  });

  it("say their limits as limits, never as a prediction", () => {
    expect(limitsText(PRESETS.quick)).toBe("up to 3 min · 20 sub-calls");
    expect(limitsText(PRESETS.thorough)).toBe("up to 15 min · 200 sub-calls");
    expect(limitsText(PRESETS.exhaustive)).toBe("up to 1 h · 1,000 sub-calls");
    expect(limitsDetail(PRESETS.exhaustive)).toMatch(/^At most 40 turns, 1,000 sub-calls and 1 h, child RLMs up to depth 2\./);
    // Nothing is guessed before a run: a 10 MB document gets its limits and no figure.
    const view = effortView(openai, 10_000_000, undefined, []);
    for (const e of EFFORTS) expect(view.choices[e]).toEqual({ limits: limitsText(PRESETS[e]), measured: null });
    expect(view.direct).toBeNull();
    expect(JSON.stringify(view)).not.toMatch(/≈/);
  });

  it("show what this session's finished runs on the same documents took, per effort", () => {
    const runs = [
      run({ docChars: 10_000_000, seconds: 12, tokens: 1800 }),
      run({ docChars: 10_000_000, seconds: 40, tokens: 6000, promptTokens: 5000 }),
      run({ docChars: 10_000_000, seconds: 90, tokens: 9000, effort: "quick" }),
      run({ docChars: 20, seconds: 5, tokens: 300 }), // other documents
      run({ docChars: 10_000_000, seconds: 1, tokens: 10, status: "stopped" }), // measures nothing
      run({ docChars: 10_000_000, seconds: 1, tokens: 10, status: "failed" }),
    ];
    const view = effortView(openai, 10_000_000, undefined, runs);
    expect(view.choices.thorough.measured).toBe("took 12–40 s · 1.8K–6.0K tokens here (2 runs)");
    expect(view.choices.quick.measured).toBe("took 2 min · 9.0K tokens here");
    expect(view.choices.exhaustive.measured).toBeNull();
    expect(measuredRuns(runs)).toHaveLength(4);
  });

  it("documents that fit the window are one direct call whatever the effort, said once", () => {
    const view = effortView(openai, 4000, undefined, [run({ docChars: 4000, seconds: 3, tokens: 1200, direct: true })]);
    expect(view.direct).toEqual({ measured: "took 3 s · 1.2K tokens here" });
    // Comparing forces the RLM, and so does "Always RLM".
    expect(effortView({ ...openai, compare: true }, 4000, undefined, []).direct).toBeNull();
    expect(effortView({ ...openai, run: { ...openai.run, mode: "rlm" } }, 4000, undefined, []).direct).toBeNull();
  });

  it("a run's preset is read back from the limits it was given", () => {
    expect(effortOfLimits({ turns: 6, subcalls: 20, timeMs: 180_000 })).toBe("quick");
    expect(effortOfLimits({ turns: 7, subcalls: 20, timeMs: 180_000 })).toBe("custom");
  });
});

const openai = { ...DEFAULT_SETTINGS, backend: "openai" as const, openai: { ...DEFAULT_SETTINGS.openai, contextWindow: 8192 } };

function run(o: {
  docChars: number;
  seconds: number;
  tokens: number;
  promptTokens?: number;
  effort?: "quick" | "thorough";
  status?: Exchange["status"];
  direct?: boolean;
}): Exchange {
  const p = PRESETS[o.effort ?? "thorough"];
  const prompt = o.promptTokens ?? Math.round(o.tokens / 2);
  return {
    ...newExchange("x", "q"),
    status: o.status ?? "answered",
    startedAt: 1_000_000,
    endedAt: 1_000_000 + o.seconds * 1000,
    docChars: o.docChars,
    limits: { turns: p.maxIterations, subcalls: p.maxSubcalls, timeMs: p.maxTimeS * 1000 },
    usage: {
      models: { m: { calls: 1, promptTokens: prompt, completionTokens: o.tokens - prompt } },
      rootCalls: 1,
      subcalls: 0,
      generationMs: 0,
      replMs: 0,
      subcallMs: 0,
      totalMs: o.seconds * 1000,
    },
    ...(o.direct ? { mode: { used: "direct" as const, reason: "fits" } } : {}),
  };
}
