// The harness's own map-reduce (no cooperation from the root) and auto mode's direct-or-RLM
// choice, against a stand-in REPL that answers the probes from strings.
import { describe, expect, it } from "vitest";
import { combinePrompt, fallbackChunkBudget, mapPrompt, runFallback, type FallbackEvent } from "../../src/core/fallback.ts";
import { chooseRunMode } from "../../src/core/run-mode.ts";
import { EngineAbortedError } from "../../src/engines/errors.ts";
import type { ProbeReply, ProbeRequest } from "../../src/repl/protocol.ts";
import { answerProbe } from "../fixtures/probe-answers.ts";

/** A REPL that only answers probes, over in-memory documents. */
class ProbeOnlyRepl {
  probes = 0;
  constructor(private readonly docs: Array<[string | null, string]>) {}

  async probe<R extends ProbeRequest>(request: R): Promise<ProbeReply<R>> {
    this.probes += 1;
    return answerProbe(this.docs, request);
  }
}

const budgets = { chunkChars: 1000, subPromptChars: 3000 };
const filler = (n: number) => "The river ran on past the mill. ".repeat(Math.ceil(n / 32)).slice(0, n);

/** A sub-model that finds "the vault code is X" and combines by taking the first answer. */
async function sub(prompt: string): Promise<string> {
  if (prompt.includes("Answers found in different parts")) {
    const first = /^1\. \([^)]*\) (.*)$/m.exec(prompt)?.[1] ?? "NOT FOUND";
    return `The vault code is ${first}`;
  }
  return /vault code is ([\w-]+)/.exec(prompt)?.[1] ?? "NOT FOUND";
}

describe("runFallback", () => {
  it("maps every piece, combines what was found, and says which pieces it came from", async () => {
    const text = `${filler(2500)} The vault code is 7319-ALPHA. ${filler(2000)}`;
    const repl = new ProbeOnlyRepl([[null, text]]);
    const prompts: string[] = [];
    const events: FallbackEvent[] = [];
    const result = await runFallback({
      repl,
      question: "What is the vault code?",
      subcall: async (p) => {
        prompts.push(p);
        return sub(p);
      },
      budgets,
      maxChunks: 20,
      onEvent: (e) => events.push(e),
    });
    expect(result).toMatchObject({
      answer: "The vault code is 7319-ALPHA",
      producedBy: "fallback",
      chunksRead: 5,
      chunksTotal: 5,
      partial: false,
      subcalls: 6,
    });
    expect(result.sources).toEqual([{ doc: null, start: 2000, end: 3000, partialAnswer: "7319-ALPHA" }]);
    expect(prompts[0]).toContain("Question: What is the vault code?");
    expect(prompts[0]).toMatch(/part 1 of 5/);
    expect(prompts.every((p) => p.length <= budgets.subPromptChars + 400)).toBe(true);
    expect(events.map((e) => e.type)).toEqual(["fallback-started", ...Array(5).fill("fallback-chunk"), "fallback-combine"]);
  });

  it("reads only the most relevant pieces of a huge document, and says the read was partial", async () => {
    const text = `${filler(40_000)} The harbour vault code is 42-B. ${filler(40_000)}`;
    const result = await runFallback({
      repl: new ProbeOnlyRepl([[null, text]]),
      question: "What is the harbour vault code?",
      subcall: sub,
      budgets,
      maxChunks: 3,
    });
    expect(result).toMatchObject({ chunksRead: 3, chunksTotal: 81, partial: true, answer: "The vault code is 42-B" });
  });

  it("names the document of each source in a dict context", async () => {
    const b = `${filler(300)} the vault code is 99. ${filler(300)}`;
    const repl = new ProbeOnlyRepl([
      ["a.md", filler(1500)],
      ["b.md", b],
    ]);
    const result = await runFallback({ repl, question: "What is the vault code?", subcall: sub, budgets, maxChunks: 10 });
    expect(result.sources).toEqual([{ doc: "b.md", start: 0, end: b.length, partialAnswer: "99" }]);
  });

  it("returns no answer when no piece holds one, and never counts Error: replies as answers", async () => {
    const repl = new ProbeOnlyRepl([[null, filler(3000)]]);
    const result = await runFallback({
      repl,
      question: "What is the vault code?",
      subcall: async (p) => (p.includes("part 2") ? "Error: the sub-call budget is used up" : "NOT FOUND"),
      budgets,
      maxChunks: 10,
    });
    expect(result).toMatchObject({ answer: "", sources: [], subcalls: 3 });
  });

  it("merges in rounds when the partial answers do not fit one combining prompt", async () => {
    // One code per 1,000-character piece, never split across two.
    const text = Array.from({ length: 12 }, (_, i) => `${filler(985)}${` code=${i} `.padEnd(15)}`).join("");
    const repl = new ProbeOnlyRepl([[null, text]]);
    const combines: string[] = [];
    const result = await runFallback({
      repl,
      question: "List every code.",
      subcall: async (p) => {
        if (p.includes("Answers found")) {
          combines.push(p);
          return [...p.matchAll(/code=(\d+)/g)].map((m) => `code=${m[1]}`).join(" ") + " " + "details ".repeat(20);
        }
        return /code=\d+/.exec(p)?.[0] ? `${/code=\d+/.exec(p)![0]} ${"x".repeat(300)}` : "NOT FOUND";
      },
      budgets,
      maxChunks: 50,
    });
    expect(combines.length).toBeGreaterThan(2);
    expect(combines.every((p) => p.length <= budgets.subPromptChars)).toBe(true);
    for (let i = 0; i < 12; i++) expect(result.answer).toContain(`code=${i}`);
  });

  it("stops when the run is stopped", async () => {
    const controller = new AbortController();
    const run = runFallback({
      repl: new ProbeOnlyRepl([[null, filler(5000)]]),
      question: "q",
      subcall: async () => {
        controller.abort();
        return "NOT FOUND";
      },
      budgets,
      maxChunks: 10,
      signal: controller.signal,
    });
    await expect(run).rejects.toBeInstanceOf(EngineAbortedError);
  });

  it("keeps the map prompt the REPL's map_query uses, and a combine prompt a model can follow", () => {
    expect(mapPrompt("Q?", 2, 9, { doc: "a.md", start: 0, end: 5 }, "TEXT")).toBe(
      "Here is part 2 of 9 of a document (a.md).\n<<<\nTEXT\n>>>\nQuestion: Q?\nAnswer from this part only, briefly. If this part does not contain the answer, reply exactly: NOT FOUND",
    );
    expect(combinePrompt("Q?", [{ label: "chars 0-5", answer: "a\nb" }], true)).toMatch(/1\. \(chars 0-5\) a b\n\nCombine them/);
    expect(fallbackChunkBudget(200)).toBe(64);
    expect(fallbackChunkBudget(5)).toBe(3);
    expect(fallbackChunkBudget(0)).toBe(1);
  });
});

describe("chooseRunMode (auto mode)", () => {
  it("answers directly when the document and question fit with room to answer", () => {
    const c = chooseRunMode(6000, 60, 4096);
    expect(c.mode).toBe("direct");
    expect(c.neededTokens).toBeLessThanOrEqual(4096);
    expect(c.reason).toMatch(/fit the window/);
  });

  it("uses the RLM when they do not", () => {
    const c = chooseRunMode(2_000_000, 60, 4096);
    expect(c.mode).toBe("rlm");
    expect(c.reason).toMatch(/does not fit/);
  });

  it("keeps the answer's room: a document that fills the window exactly goes to the RLM", () => {
    expect(chooseRunMode(4096 * 3.5, 10, 4096).mode).toBe("rlm");
    expect(chooseRunMode(100_000, 10, 131_072).mode).toBe("direct");
  });

  it("an explicit request wins and is said so", () => {
    expect(chooseRunMode(100, 10, 4096, "rlm")).toMatchObject({ mode: "rlm", reason: "RLM was asked for" });
    expect(chooseRunMode(2_000_000, 10, 4096, "direct")).toMatchObject({ mode: "direct", reason: expect.stringMatching(/cut to fit/) });
  });
});
