// `rlm --fallback ask|always|never`, `--max-fallback-calls`, `--max-fallback-tokens` (issue 28 §3):
// parsing, the policy they make (the core's defaults otherwise), the question on a terminal, and
// the stderr line that says what happened. The real command runs in tests/node/cli-fallback.test.ts.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { UsageError, parseCliArgs } from "../../src/cli/args.ts";
import { fallbackLine, fallbackPolicyFrom, terminalAsker, yesNo } from "../../src/cli/fallback-prompt.ts";
import { DEFAULT_FALLBACK_POLICY } from "../../src/core/fallback-cost.ts";
import type { RlmResult } from "../../src/core/types.ts";

const args = (...more: string[]) => parseCliArgs(["--task", "q", "--model", "m", ...more], {});

describe("the flags", () => {
  it("make the policy; without them it is the core's default (ask above 12 calls or 100K tokens)", () => {
    expect(fallbackPolicyFrom(args())).toEqual(DEFAULT_FALLBACK_POLICY);
    expect(fallbackPolicyFrom(args("--fallback", "always"))).toEqual({ ...DEFAULT_FALLBACK_POLICY, mode: "always" });
    expect(fallbackPolicyFrom(args("--max-fallback-calls", "40", "--max-fallback-tokens", "500000"))).toEqual({
      mode: "ask",
      maxCalls: 40,
      maxTokens: 500_000,
    });
  });

  it("are documented in --help with the core's defaults", async () => {
    const { HELP } = await import("../../src/cli/help.mjs");
    expect(HELP).toContain("--fallback MODE           ask (default");
    expect(HELP).toContain(
      `--max-fallback-calls N    helper calls that reading may make without asking (default ${DEFAULT_FALLBACK_POLICY.maxCalls})`,
    );
    expect(HELP).toContain(`--max-fallback-tokens N   tokens it may use without asking (default ${DEFAULT_FALLBACK_POLICY.maxTokens})`);
  });

  it("refuse other modes and limits that are not whole numbers", () => {
    expect(() => args("--fallback", "sometimes")).toThrow(UsageError);
    expect(() => args("--fallback", "sometimes")).toThrow(/ask, always, never/);
    expect(() => args("--max-fallback-calls", "1.5")).toThrow(/--max-fallback-calls needs a whole number/);
    expect(() => args("--max-fallback-tokens", "1e9.5")).toThrow(UsageError);
  });
});

describe("on a terminal", () => {
  const question = {
    reason: "The model could not drive the run: it sent the same code 3 times in a row.",
    estimate: { parts: 30, partsTotal: 30, calls: 31, tokens: 250_000, ms: null, endpoint: { name: "api.example.com", local: false } },
    over: "31 calls, over the limit of 12; ≈ 250K tokens, over the limit of 100K",
  };

  it("asks on stderr; y reads, anything else or the end of input does not", async () => {
    for (const [typed, read] of [
      ["y\n", true],
      ["yes\n", true],
      ["\n", false],
      ["n\n", false],
    ] as const) {
      const input = new PassThrough();
      const output = new PassThrough();
      let shown = "";
      output.on("data", (d: Buffer) => (shown += d.toString()));
      const answer = terminalAsker(yesNo(input, output))(question, new AbortController().signal);
      input.write(typed);
      expect(await answer).toBe(read);
      expect(shown).toMatch(
        /^rlm: The model could not drive the run: .* on api\.example\.com: a paid endpoint bills every one of these tokens\./,
      );
      expect(shown).toContain("Read it? [y/N] ");
    }
    const closed = new PassThrough();
    const answer = yesNo(closed, new PassThrough())("Read it? ", new AbortController().signal);
    closed.end();
    expect(await answer).toBe(false);
  });

  it("Stop while asking is no", async () => {
    const stop = new AbortController();
    const answer = yesNo(new PassThrough(), new PassThrough())("Read it? ", stop.signal);
    stop.abort();
    expect(await answer).toBe(false);
  });
});

describe("what stderr says", () => {
  const base = { answer: "", status: "too-many-errors", iterations: [], usage: {} } as unknown as RlmResult;
  const fallback = { reason: "The model could not drive the run: x.", chunksRead: 0, chunksTotal: 30, partial: false };

  it("how a reading that answered was allowed, or how to allow one that was not made", () => {
    const answered = { ...base, answer: "42", status: "answered", producedBy: "fallback" } as RlmResult;
    expect(fallbackLine({ ...answered, fallback: { ...fallback, chunksRead: 30, decision: "agreed" } })).toBe(
      "rlm: answered by the fallback (The model could not drive the run: x.); the harness read 30 of 30 parts itself (you agreed).\n",
    );
    expect(fallbackLine({ ...base, fallback: { ...fallback, decision: "over-limits" } })).toMatch(
      /pass --fallback always, or raise --max-fallback-calls/,
    );
    expect(fallbackLine({ ...base, fallback: { ...fallback, decision: "never" } })).toBe(
      "rlm: the harness's own reading is off (--fallback never).\n",
    );
    expect(fallbackLine({ ...base, status: "stopped", fallback: { ...fallback, decision: "declined" } })).toBe("");
    expect(fallbackLine(base)).toBe("");
  });
});
