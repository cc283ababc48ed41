// The run's time limit holds while Python is still loading a huge document (issue 32 §5): `rlm`
// with a 3 GB --context-file and --max-time 40 ran 132 s, because a run that ran out of time
// waited for Python to finish decoding before it ended. It now ends at the limit, and a clock
// started before the question (rlm's own start) is the one the limit counts from.
import { describe, expect, it } from "vitest";
import { runRlm } from "../../src/core/loop.ts";
import { DEFAULT_CONFIG } from "../../src/core/types.ts";
import { ScriptedRepl } from "../fixtures/scripted-repl.ts";
import { neverAnswers } from "../fixtures/instant-engine.ts";

describe("a run whose Python is still loading the documents", () => {
  it("ends at its time limit instead of waiting for Python", { timeout: 20_000 }, async () => {
    const started = Date.now();
    const result = await runRlm({
      question: "What is in it?",
      repl: new ScriptedRepl(),
      rootEngine: neverAnswers,
      config: { ...DEFAULT_CONFIG, maxWallTimeMs: 60_000, startedAt: Date.now() - 59_700 },
      // Python decoding a 3 GB file: not ready for as long as this test runs.
      pending: { context: { type: "str", total_chars: 3e9, items: 1 }, ready: new Promise<void>(() => undefined) },
    });
    expect(result.status).toBe("out-of-time");
    expect(result.message).toMatch(/60 s time limit was reached while Python was still loading the documents/);
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
