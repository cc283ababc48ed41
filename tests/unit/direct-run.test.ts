// Direct mode under the run's time limit: one call can take as long as a whole RLM run, and
// `--max-time` (the page's time limit) must end it like any other run, saying it ran out of time.
import { describe, expect, it } from "vitest";
import { runDirect } from "../../src/core/direct-run.ts";
import { DEFAULT_CONFIG } from "../../src/core/types.ts";
import { neverAnswers } from "../fixtures/instant-engine.ts";

const document = { totalChars: 11, head: async () => "hello world", tail: async () => "hello world" };

/** A direct run of one question over the stand-in document, with an engine that never answers. */
const runNeverAnswered = (config: typeof DEFAULT_CONFIG, signal = new AbortController().signal) =>
  runDirect({ question: "What does it say?", previous: [], engine: neverAnswers, document, config, reason: "it fits", signal });

describe("a direct answer", () => {
  it("ends at the run's time limit and says so", async () => {
    const started = Date.now();
    const result = await runNeverAnswered({ ...DEFAULT_CONFIG, maxWallTimeMs: 300 });
    expect(result.status).toBe("out-of-time");
    expect(result.message).toMatch(/time limit was reached/);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it(
    "counts from the clock's start when the caller started it earlier (rlm: from its own start, issue 32 §5)",
    { timeout: 20_000 },
    async () => {
      const started = Date.now();
      // The command started a minute ago, its limit is a minute: nothing is left for the call.
      const result = await runNeverAnswered({ ...DEFAULT_CONFIG, maxWallTimeMs: 60_000, startedAt: Date.now() - 60_000 });
      expect(result.status).toBe("out-of-time");
      expect(Date.now() - started).toBeLessThan(15_000);
    },
  );

  it("Stop is still Stop", async () => {
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 50);
    const result = await runNeverAnswered(DEFAULT_CONFIG, stop.signal);
    expect(result.status).toBe("stopped");
  });
});
