// The decision before the harness reads a document itself (issue 28 §3), in src/core where the
// page and `rlm` share it: the estimate (calls, tokens, time from what was measured, which
// endpoint), the person's limits, asking above them, and the diagnosis the answer gives. The
// loop runs for real over a stand-in REPL and in-memory engines; nothing here needs a browser.
import { describe, expect, it } from "vitest";
import { deriveBudgets } from "../../src/core/budgets.ts";
import {
  compactCount,
  costWords,
  endpointWords,
  estimateFallback,
  fallbackEndpoint,
  gateFallback,
  overLimits,
  questionWords,
  roughDuration,
  type FallbackEstimate,
  type FallbackPolicy,
  type FallbackQuestion,
} from "../../src/core/fallback-cost.ts";
import { runRlm } from "../../src/core/loop.ts";
import { emptyUsage } from "../../src/core/usage.ts";
import { DEFAULT_CONFIG, type RlmConfig, type UsageSummary } from "../../src/core/types.ts";
import { EngineAbortedError } from "../../src/engines/errors.ts";
import type { ChatRequest } from "../../src/engines/types.ts";
import type { CellResult } from "../../src/repl/protocol.ts";
import { InstantEngine } from "../fixtures/instant-engine.ts";
import { ScriptedRepl } from "../fixtures/scripted-repl.ts";
import { repl as code } from "../fixtures/scripted-server.ts";

const usage = (over: Partial<UsageSummary> = {}): UsageSummary => ({ ...emptyUsage(), ...over });

const estimate = (over: Partial<FallbackEstimate> = {}): FallbackEstimate => ({
  parts: 47,
  partsTotal: 47,
  calls: 48,
  tokens: 791_000,
  ms: null,
  endpoint: { name: "api.example.com", local: false },
  ...over,
});

describe("where the helper model runs, and what it costs there", () => {
  it.each([
    ["http://localhost:8000/v1", "localhost:8000", true],
    ["http://127.0.0.1:11434/v1", "127.0.0.1:11434", true],
    ["http://192.168.1.20:8080/v1", "192.168.1.20:8080", true],
    ["http://10.0.0.5/v1", "10.0.0.5", true],
    ["http://172.20.1.1:8000/v1", "172.20.1.1:8000", true],
    ["http://[::1]:8000/v1", "[::1]:8000", true],
    ["http://gpu-box.local:8000/v1", "gpu-box.local:8000", true],
    ["https://api.openai.com/v1", "api.openai.com", false],
    ["https://172.32.0.1/v1", "172.32.0.1", false],
  ])("%s is %s (local: %s)", (baseUrl, name, local) => {
    expect(fallbackEndpoint({ baseUrl })).toEqual({ name, local });
  });

  it("a model in this browser or process costs time; a remote endpoint is said to bill", () => {
    expect(fallbackEndpoint({})).toEqual({ name: "this device", local: true });
    expect(endpointWords({ name: "this device", local: true })).toBe("on the model on this device: it costs time, not money");
    expect(endpointWords({ name: "127.0.0.1:8000", local: true })).toMatch(
      /a server on your machine or network: it costs time, not money$/,
    );
    expect(endpointWords({ name: "api.example.com", local: false })).toBe(
      "on api.example.com: a paid endpoint bills every one of these tokens",
    );
  });
});

describe("the estimate", () => {
  const budgets = deriveBudgets({ rootWindow: 8192, subWindow: 8192 });
  const plan = { refs: Array.from({ length: 10 }, (_, i) => ({ doc: null, start: i * 17_000, end: (i + 1) * 17_000 })), chunksTotal: 10 };
  const base = { plan, question: "What is the code?", budgets, subModel: "sub", concurrency: 1, endpoint: { name: "x", local: false } };

  it("one call per part and one to combine; the tokens are the parts' characters and the replies as measured", () => {
    const e = estimateFallback({
      ...base,
      usage: usage({ models: { root: { calls: 4, promptTokens: 4000, completionTokens: 400 } }, rootCalls: 4 }),
    });
    expect(e).toMatchObject({ parts: 10, partsTotal: 10, calls: 11, ms: null });
    // 170,000 characters at 3.5 per token, plus each prompt's frame, plus 11 replies of 100 tokens.
    expect(e.tokens).toBeGreaterThan(170_000 / 3.5 + 1100);
    expect(e.tokens).toBeLessThan(170_000 / 3.5 + 1100 + 2000);
  });

  it("the time only from this run: the helper's own calls when it made some, else the root's; spread over the calls in flight", () => {
    const rootOnly = usage({ rootCalls: 4, generationMs: 8000 });
    expect(estimateFallback({ ...base, usage: rootOnly }).ms).toBe(11 * 2000);
    const withSubs = usage({ rootCalls: 4, generationMs: 8000, subcalls: 5, subcallMs: 2500 });
    expect(estimateFallback({ ...base, usage: withSubs, concurrency: 4 }).ms).toBe(3 * 500);
    expect(estimateFallback({ ...base, usage: usage() }).ms).toBeNull();
  });

  it("says the time only when measured, and rounds it", () => {
    expect(costWords(estimate())).toBe("48 calls (47 parts and 1 to combine), ≈ 791K tokens");
    expect(costWords(estimate({ ms: 250_000 }))).toBe("48 calls (47 parts and 1 to combine), ≈ 791K tokens, ≈ 4 min at this run's speed");
    expect(roughDuration(400)).toBe("under a second");
    expect(roughDuration(45_000)).toBe("≈ 45 s");
    expect(roughDuration(2 * 3_600_000)).toBe("≈ 2.0 h");
    expect(compactCount(9_999)).toBe("9,999");
    expect(compactCount(74_912)).toBe("74.9K");
    expect(compactCount(1_234_567)).toBe("1.2M");
  });
});

describe("the decision", () => {
  const ask: FallbackPolicy = { mode: "ask", maxCalls: 12, maxTokens: 100_000 };

  it("reads within the limits, asks above them, and without anyone to ask does not read", () => {
    const small = estimate({ calls: 3, tokens: 9_000 });
    expect(gateFallback(small, ask, true)).toEqual({ action: "run", decision: "within-limits" });
    expect(gateFallback(estimate(), ask, true)).toEqual({ action: "ask" });
    expect(gateFallback(estimate(), ask, false)).toEqual({ action: "skip", decision: "over-limits" });
    expect(gateFallback(estimate(), { ...ask, mode: "always" }, false)).toEqual({ action: "run", decision: "always" });
    expect(gateFallback(small, { ...ask, mode: "never" }, true)).toEqual({ action: "skip", decision: "never" });
  });

  it("names each limit it is over", () => {
    expect(overLimits(estimate(), ask)).toBe("48 calls, over the limit of 12; ≈ 791K tokens, over the limit of 100K");
    expect(overLimits(estimate({ calls: 5 }), ask)).toBe("≈ 791K tokens, over the limit of 100K");
    expect(overLimits(estimate({ calls: 5, tokens: 10 }), ask)).toBeNull();
  });

  it("asks in one paragraph: why, what would be read, the cost, where, the limit", () => {
    const q: FallbackQuestion = {
      reason: "The model could not drive the run: it wrote nothing that could run in 2 turns in a row.",
      estimate: estimate({ parts: 47, partsTotal: 300 }),
      over: "48 calls, over the limit of 12",
    };
    expect(questionWords(q)).toBe(
      "The model could not drive the run: it wrote nothing that could run in 2 turns in a row. The harness can read the 47 most relevant of the document's 300 parts with the helper model instead: 48 calls (47 parts and 1 to combine), ≈ 791K tokens, on api.example.com: a paid endpoint bills every one of these tokens. That is 48 calls, over the limit of 12.",
    );
  });
});

// --- in the loop --------------------------------------------------------------------------------

const NEEDLE = "The vault code is 7419.";
/** A document of `parts` parts for an 8K helper (17,000 characters each), the needle in the last. */
const documentOf = (parts: number) =>
  `${"Minutes of the board. ".repeat(Math.ceil(((parts - 1) * 17_000) / 22)).slice(0, (parts - 1) * 17_000)}${NEEDLE}`;

/** A REPL whose cells that divide by zero fail, as Python's would. */
class FailingRepl extends ScriptedRepl {
  override async runCell(cellCode: string): Promise<CellResult> {
    if (!cellCode.includes("1/0")) return super.runCell(cellCode);
    this.cells.push(cellCode);
    const stderr = cellCode.includes("x") ? "NameError: name 'x' is not defined\n" : "ZeroDivisionError: division by zero\n";
    return { stdout: "", stderr, final_answer: null, locals: {}, execution_time: 0, error: stderr.split(":")[0]!, interrupted: false };
  }
}

interface LoopSetup {
  root?: (req: ChatRequest) => string;
  parts?: number;
  policy?: FallbackPolicy;
  config?: Partial<RlmConfig>;
  confirm?: (q: FallbackQuestion, signal: AbortSignal) => Promise<boolean>;
  signal?: AbortSignal;
}

async function loop(s: LoopSetup = {}) {
  const repl = new FailingRepl();
  await repl.addDocument({ name: "minutes.txt", data: new Blob([documentOf(s.parts ?? 1)]) });
  const root = new InstantEngine("root", s.root ?? (() => "Let me think about it."), 8192);
  const sub = new InstantEngine(
    "sub",
    (req) => {
      const text = req.messages.at(-1)!.content;
      if (text.includes("Answers found in different parts")) return "7419";
      return text.includes(NEEDLE) ? "7419" : "NOT FOUND";
    },
    8192,
  );
  const config: RlmConfig = { ...DEFAULT_CONFIG, maxIterations: 6, ...(s.policy ? { fallback: s.policy } : {}), ...s.config };
  const result = await runRlm({
    question: "What is the vault code?",
    repl,
    rootEngine: root,
    subEngine: sub,
    config,
    ...(s.confirm ? { confirmFallback: s.confirm } : {}),
    ...(s.signal ? { signal: s.signal } : {}),
  });
  return { result, sub };
}

const ASK: FallbackPolicy = { mode: "ask", maxCalls: 12, maxTokens: 1_000_000 };

describe("the loop asks before it spends above the limits", () => {
  it("asks before any helper call; declined, nothing is spent and the run says what it would have cost", async () => {
    const asked: FallbackQuestion[] = [];
    const { result, sub } = await loop({
      parts: 20,
      policy: ASK,
      confirm: async (q) => {
        asked.push(q);
        return false;
      },
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      reason: "The model could not drive the run: it wrote nothing that could run in 2 turns in a row.",
      estimate: { parts: 20, partsTotal: 20, calls: 21, endpoint: { name: "this device", local: true } },
      over: "21 calls, over the limit of 12",
    });
    expect(sub.calls).toBe(0);
    expect(result).toMatchObject({ answer: "", status: "stopped", fallback: { decision: "declined", chunksRead: 0, chunksTotal: 20 } });
    expect(result.message).toMatch(
      /You stopped here rather than have the harness read the document: reading all 20 parts of the document would take 21 calls/,
    );
  });

  it("agreed, it reads and says so", async () => {
    const { result, sub } = await loop({ parts: 20, policy: ASK, confirm: async () => true });
    expect(sub.calls).toBe(21);
    expect(result).toMatchObject({
      answer: "7419",
      status: "answered",
      producedBy: "fallback",
      fallback: { decision: "agreed", chunksRead: 20 },
    });
    expect(result.fallback?.estimate).toMatchObject({ calls: 21, endpoint: "this device", local: true });
  });

  it("with nobody to ask it does not read above the limits, and says so; within them it reads without asking", async () => {
    const over = await loop({ parts: 20, policy: ASK });
    expect(over.sub.calls).toBe(0);
    expect(over.result).toMatchObject({ answer: "", status: "too-many-errors", fallback: { decision: "over-limits" } });
    expect(over.result.message).toMatch(
      /The harness did not read the document itself without asking: .*\(21 calls, over the limit of 12\)\.$/,
    );
    let asked = false;
    const within = await loop({ parts: 2, policy: ASK, confirm: async () => (asked = true) });
    expect(asked).toBe(false);
    expect(within.result).toMatchObject({ answer: "7419", producedBy: "fallback", fallback: { decision: "within-limits" } });
  });

  it("never reads when told never; without a policy (the benchmark) it reads as it always did", async () => {
    const never = await loop({ parts: 2, policy: { ...ASK, mode: "never" } });
    expect(never.sub.calls).toBe(0);
    expect(never.result.fallback?.decision).toBe("never");
    const bench = await loop({ parts: 20 });
    expect(bench.result).toMatchObject({ answer: "7419", fallback: { decision: "always" } });
  });

  it("Stop while the person is asked stops the run; the time they take is not the run's", async () => {
    const stop = new AbortController();
    let aborted = false;
    const stopped = await loop({
      parts: 20,
      policy: ASK,
      signal: stop.signal,
      confirm: (_q, signal) =>
        new Promise((resolve) => {
          signal.addEventListener("abort", () => (aborted = true));
          setTimeout(() => stop.abort(), 10);
          setTimeout(() => resolve(true), 200); // too late: Stop came first
        }),
    });
    expect(aborted).toBe(true);
    expect(stopped.sub.calls).toBe(0);
    expect(stopped.result.status).toBe("stopped");

    const slow = await loop({
      parts: 20,
      policy: ASK,
      config: { maxWallTimeMs: 400 },
      confirm: () => new Promise((resolve) => setTimeout(() => resolve(true), 800)),
    });
    expect(slow.result).toMatchObject({ answer: "7419", status: "answered", fallback: { decision: "agreed" } });
  });
});

describe("the run's time limit during the harness's reading", () => {
  it("is out of time, not stopped: nobody pressed Stop", async () => {
    const repl = new FailingRepl();
    await repl.addDocument({ name: "minutes.txt", data: new Blob([documentOf(20)]) });
    const root = new InstantEngine("root", () => "Let me think about it.", 8192);
    // A helper model slower than the time left: the deadline comes in the middle of the reading.
    const sub = new InstantEngine("sub", () => "NOT FOUND", 8192);
    const complete = sub.complete.bind(sub);
    sub.complete = (request, options = {}) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve(complete(request, options)), 5_000);
        options.signal?.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(new EngineAbortedError());
        });
      });
    const started = Date.now();
    const result = await runRlm({
      question: "What is the vault code?",
      repl,
      rootEngine: root,
      subEngine: sub,
      config: {
        ...DEFAULT_CONFIG,
        maxIterations: 6,
        maxWallTimeMs: 300,
        fallback: { mode: "always", maxCalls: 100, maxTokens: 10_000_000 },
      },
    });
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(result.status).toBe("out-of-time");
    expect(result.answer).toBe("");
    expect(result.message).toMatch(/could not drive the run.*time limit/s);
  });
});

describe("the diagnosis names what the model did", () => {
  const cases: Array<[string, LoopSetup, string]> = [
    ["prose twice", {}, "it wrote nothing that could run in 2 turns in a row"],
    ["the same code thrice", { root: () => code("print('looking')") }, "it sent the same code 3 times in a row"],
    [
      "stuck on one error",
      { root: (r) => code(`y${r.messages.length} = 1/0`) },
      "its code failed with the same error three times in a row",
    ],
    [
      "errors in a row",
      {
        root: (r) => code(r.messages.length % 4 === 0 ? `x${r.messages.length} = 1/0` : `y${r.messages.length} = 1/0`),
        config: { maxConsecutiveErrors: 2 },
      },
      "its code failed 2 turns in a row, and its last reply gave no usable answer",
    ],
    [
      "no usable answer at the turn limit",
      { root: (r) => code(`step${r.messages.length} = 1`), config: { maxIterations: 3 } },
      "it used all 3 turns, and its last reply gave no usable answer",
    ],
  ];
  it.each(cases)("%s", async (_name, setup, cause) => {
    const { result } = await loop(setup);
    expect(result.producedBy).toBe("fallback");
    expect(result.fallback?.reason).toBe(`The model could not drive the run: ${cause}.`);
  });
});
