// The local engine through real llama.cpp (node-llama-cpp's CPU build), on random-weight Qwen
// GGUFs that carry Qwen's real tokenizer and chat template (tests/fixtures/gguf). A grammar per
// request makes the random model a scripted one, so the whole RLM loop runs through genuine
// generation; the assertions are on flow and on llama.cpp's own token counts, never on prose.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RlmSession } from "../../src/core/session.ts";
import { EngineAbortedError } from "../../src/engines/errors.ts";
import { PREFILL_BATCH, openLocalModels, type LlamaRequestStats, type LocalModels } from "../../src/engines/llama-node/index.ts";
import { createNodeRepl } from "../../src/repl/node.ts";
import { tinyQwenGguf } from "../fixtures/gguf/index.ts";
import { SCRIPT, scriptedRlm } from "../fixtures/llama-script.ts";
import { TEST_SNAPSHOT_DIR, config, text } from "./helpers.ts";

const DOCUMENT = "Line one says nothing.\nLine two says 42.\n";
/** Two llama.cpp threads fight the other tests for a 2-core machine's cores and run slower than one. */
const ONE_THREAD = 1;

describe("llama.cpp in this process", () => {
  it("runs a scripted RLM answer; the root's second turn evaluates only its new tokens, though a sub-call ran in between", async () => {
    const stats: LlamaRequestStats[] = [];
    const local = await openLocalModels({
      modelFile: await tinyQwenGguf(),
      threads: ONE_THREAD,
      testGrammar: scriptedRlm(),
      performanceTracking: true,
      onRequest: (s) => stats.push(s),
    });
    const session = new RlmSession({
      createRepl: () => createNodeRepl({ syncMode: "auto", snapshotDir: TEST_SNAPSHOT_DIR }),
      engines: () => ({ root: local.root, sub: local.sub }),
      config: () => config(),
    });
    try {
      await session.addDocuments([{ path: "doc.txt", data: text(DOCUMENT) }]);
      const result = await session.ask("Which number is on line two?");

      // What ran: root turn (its invented REPL output cut by the stop string), Python, a sub-call
      // answered by the same model, root turn with FINAL from Python's variables.
      expect(result.status).toBe("answered");
      expect(result.answer).toBe(`pong ${DOCUMENT.length}`);
      expect(result.iterations.map((i) => i.response)).toEqual([SCRIPT.firstTurnAfterStop, SCRIPT.secondTurn]);
      expect(result.usage.subcalls).toBe(1);
      expect(stats.map((s) => s.role)).toEqual(["root", "sub", "root"]);
      const [first, subcall, second] = stats as [LlamaRequestStats, LlamaRequestStats, LlamaRequestStats];

      // Each request's figures are llama.cpp's own: every token it decoded, prompt and generated
      // (the prompt's last token and each sampled token but the last are single-token runs).
      for (const s of stats) {
        expect(s.reusedTokens + s.evaluatedTokens).toBe(s.promptTokens);
        expect(s.llamaCpp!.promptEvalTokens + s.llamaCpp!.evalRuns).toBe(s.evaluatedTokens + s.generatedTokens - 1);
      }
      // The sub-call had a sequence of its own, so the root's cache survived it: the second root
      // turn found the whole first prompt in its cache (all but the reply's opening, which
      // Qwen's template renders differently once the reply is history) and evaluated only the new part.
      expect(subcall.sequence).not.toBe(first.sequence);
      expect(second.sequence).toBe(first.sequence);
      expect(second.reusedTokens).toBeGreaterThanOrEqual(first.promptTokens - 8);
      expect(second.llamaCpp!.promptEvalTokens).toBeLessThan(second.promptTokens - first.promptTokens + 16);
      // The run's usage is llama.cpp's count, not an estimate.
      const sum = (pick: (s: LlamaRequestStats) => number) => stats.reduce((n, s) => n + pick(s), 0);
      expect(result.usage.models[local.root.model]).toMatchObject({
        calls: 3,
        promptTokens: sum((s) => s.promptTokens),
        completionTokens: sum((s) => s.generatedTokens),
      });
    } finally {
      session.close();
      await local.close();
    }
  });

  describe("Stop", () => {
    let local: LocalModels;
    beforeAll(async () => {
      local = await openLocalModels({ modelFile: await tinyQwenGguf(), threads: ONE_THREAD, subCallSlots: 1 });
    });
    afterAll(async () => local?.close());

    it("ends generation within a second, and the sequence serves the next request", async () => {
      const controller = new AbortController();
      let tokens = 0;
      let abortedAt = 0;
      const request = local.root.complete(
        { messages: [{ role: "user", content: "Write forever." }], thinking: false },
        {
          signal: controller.signal,
          onToken: () => {
            if (++tokens === 20) {
              abortedAt = performance.now();
              controller.abort();
            }
          },
        },
      );
      await expect(request).rejects.toBeInstanceOf(EngineAbortedError);
      expect(performance.now() - abortedAt).toBeLessThan(1000);
      const next = await local.root.complete({ messages: [{ role: "user", content: "Again." }], maxTokens: 3, thinking: false });
      expect(next.usage.completionTokens).toBeGreaterThan(0);
    });

    it("switches Qwen3's thinking off with the template's empty <think></think>", async () => {
      const messages = [{ role: "user" as const, content: "Hi" }];
      const off = await local.root.complete({ messages, maxTokens: 1, thinking: false });
      const on = await local.root.complete({ messages, maxTokens: 1, thinking: true });
      // "<think>", "\n\n", "</think>", "\n\n": four tokens more in the prompt when thinking is off.
      expect(off.usage.promptTokens - on.usage.promptTokens).toBe(4);
    });
  });

  it("Stop during a long prefill answers at once; llama.cpp stops after the batch under way", async () => {
    // Qwen2.5-0.5B's real shape: a prompt of ~6,000 tokens takes many seconds on a laptop's CPU.
    const stats: LlamaRequestStats[] = [];
    const local = await openLocalModels({
      modelFile: await tinyQwenGguf({ shape: "qwen2.5-0.5b" }),
      contextWindow: 8192,
      threads: ONE_THREAD,
      subCallSlots: 1,
      onRequest: (s) => stats.push(s),
    });
    try {
      const messages = [{ role: "user" as const, content: "The quick brown fox jumps over the lazy dog. ".repeat(600) }];
      const controller = new AbortController();
      const started = local.root.complete({ messages, maxTokens: 1, thinking: false }, { signal: controller.signal });
      await new Promise((r) => setTimeout(r, 1000));
      const abortedAt = performance.now();
      controller.abort();
      await expect(started).rejects.toBeInstanceOf(EngineAbortedError);
      expect(performance.now() - abortedAt).toBeLessThan(1000);
      // The batch under way finishes in the background (llama.cpp cannot interrupt one); then the
      // prompt's evaluation ends there, and the sequence takes the next request.
      const next = await local.root.complete({ messages: [{ role: "user", content: "Short." }], maxTokens: 1, thinking: false });
      expect(next.finishReason).toBe("length");
      const stopped = stats[0]!;
      expect(stopped.finishReason).toBe("abort");
      expect(stopped.evaluatedTokens).toBeLessThan(stopped.promptTokens - PREFILL_BATCH);
    } finally {
      await local.close();
    }
  });
});
