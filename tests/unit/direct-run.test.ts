// Direct mode under the run's time limit: one call can take as long as a whole RLM run, and
// `--max-time` (the page's time limit) must end it like any other run, saying it ran out of time.
import { describe, expect, it } from "vitest";
import { runDirect } from "../../src/core/direct-run.ts";
import { DEFAULT_CONFIG } from "../../src/core/types.ts";
import { neverAnswers } from "../fixtures/instant-engine.ts";

const document = { totalChars: 11, head: async () => "hello world", tail: async () => "hello world" };

describe("a direct answer", () => {
  it("ends at the run's time limit and says so", async () => {
    const started = Date.now();
    const result = await runDirect({
      question: "What does it say?",
      previous: [],
      engine: neverAnswers,
      document,
      config: { ...DEFAULT_CONFIG, maxWallTimeMs: 300 },
      reason: "it fits",
      signal: new AbortController().signal,
    });
    expect(result.status).toBe("out-of-time");
    expect(result.message).toMatch(/time limit was reached/);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it(
    "counts from the clock's start when the caller started it earlier (rlm: from its own start, issue 32 §5)",
    { timeout: 20_000 },
    async () => {
      const started = Date.now();
      const result = await runDirect({
        question: "What does it say?",
        previous: [],
        engine: neverAnswers,
        document,
        // The command started a minute ago, its limit is a minute: nothing is left for the call.
        config: { ...DEFAULT_CONFIG, maxWallTimeMs: 60_000, startedAt: Date.now() - 60_000 },
        reason: "it fits",
        signal: new AbortController().signal,
      });
      expect(result.status).toBe("out-of-time");
      expect(Date.now() - started).toBeLessThan(15_000);
    },
  );

  it("Stop is still Stop", async () => {
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 50);
    const result = await runDirect({
      question: "What does it say?",
      previous: [],
      engine: neverAnswers,
      document,
      config: DEFAULT_CONFIG,
      reason: "it fits",
      signal: stop.signal,
    });
    expect(result.status).toBe("stopped");
  });
});
