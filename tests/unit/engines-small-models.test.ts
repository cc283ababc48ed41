// Both engines carry the harness's stop sequences and the thinking switch (M05, M08), and the
// sub-call policy keeps llm_query inside small windows (M13): size check, reply cap, thinking
// off, memoisation.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SubcallPolicy, SubcallTooLongError } from "../../src/core/subcall-policy.ts";
import { deriveBudgets } from "../../src/core/budgets.ts";
import { ROOT_STOP_SEQUENCES } from "../../src/core/reply.ts";
import { MAX_STOP_SEQUENCES, OpenAIEngine, hasThinkingSwitch } from "../../src/engines/openai.ts";
import type { ChatRequest, ChatResult } from "../../src/engines/types.ts";
import { findCatalogEntry } from "../../src/engines/webllm/catalog.ts";
import { WebLLMEngine } from "../../src/engines/webllm/engine.ts";
import type { ModelWorkerApi, WorkerCompletionRequest } from "../../src/engines/webllm/protocol.ts";
import { startScriptedServer, type ScriptedServer } from "../fixtures/scripted-server.ts";

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer({ contextWindow: 8192, sub: "ok" });
});
afterAll(async () => server?.close());

const ask = [{ role: "user" as const, content: "hi" }];
const lastBody = () => server.requests.at(-1)!.body;

describe("OpenAI-compatible engine", () => {
  it("sends the root stop sequences, at most four", async () => {
    const engine = new OpenAIEngine({ baseUrl: server.baseUrl, model: "m" });
    await engine.complete({ messages: ask, stop: ROOT_STOP_SEQUENCES });
    expect(lastBody().stop).toEqual([...ROOT_STOP_SEQUENCES]);
    await engine.complete({ messages: ask, stop: ["a", "b", "c", "d", "e", "f"] });
    expect(lastBody().stop).toHaveLength(MAX_STOP_SEQUENCES);
    await engine.complete({ messages: ask });
    expect(lastBody()).not.toHaveProperty("stop");
  });

  it("turns Qwen3 thinking off through chat_template_kwargs (vLLM, SGLang, llama.cpp)", async () => {
    const engine = new OpenAIEngine({ baseUrl: server.baseUrl, model: "Qwen/Qwen3-8B" });
    await engine.complete({ messages: ask, thinking: false });
    expect(lastBody().chat_template_kwargs).toEqual({ enable_thinking: false });
    await engine.complete({ messages: ask, thinking: true });
    expect(lastBody().chat_template_kwargs).toEqual({ enable_thinking: true });
    await engine.complete({ messages: ask });
    expect(lastBody()).not.toHaveProperty("chat_template_kwargs");
  });

  it("sends no switch to models without one, or when told not to", async () => {
    await new OpenAIEngine({ baseUrl: server.baseUrl, model: "Qwen/Qwen2.5-7B-Instruct" }).complete({ messages: ask, thinking: false });
    expect(lastBody()).not.toHaveProperty("chat_template_kwargs");
    await new OpenAIEngine({ baseUrl: server.baseUrl, model: "qwen3:4b", thinkingControl: "none" }).complete({
      messages: ask,
      thinking: false,
    });
    expect(lastBody()).not.toHaveProperty("chat_template_kwargs");
    expect(hasThinkingSwitch("mit-oasys/rlm-qwen3-30b-a3b-v0.1")).toBe(true);
  });

  it("uses reasoning_effort for servers that read that (Ollama's /v1)", async () => {
    await new OpenAIEngine({ baseUrl: server.baseUrl, model: "qwen3:4b", thinkingControl: "reasoning-effort" }).complete({
      messages: ask,
      thinking: false,
    });
    expect(lastBody()).toMatchObject({ reasoning_effort: "none" });
    expect(lastBody()).not.toHaveProperty("chat_template_kwargs");
  });

  it("a server that rejects the field is asked again without it, and never sent it again", async () => {
    server.scripts.sub = (req) =>
      "chat_template_kwargs" in req.body
        ? { text: "", status: 400, error: "Unrecognized request argument supplied: chat_template_kwargs" }
        : "answer";
    const engine = new OpenAIEngine({ baseUrl: server.baseUrl, model: "qwen3-4b" });
    const before = server.requests.length;
    expect((await engine.complete({ messages: ask, thinking: false })).text).toBe("answer");
    expect(server.requests.length - before).toBe(2);
    await engine.complete({ messages: ask, thinking: false });
    expect(server.requests.length - before).toBe(3);
    expect(lastBody()).not.toHaveProperty("chat_template_kwargs");
    server.scripts.sub = "ok";
  });

  it("a 400 about something else is still an error", async () => {
    server.scripts.sub = { text: "", status: 400, error: "temperature must be positive" };
    const engine = new OpenAIEngine({ baseUrl: server.baseUrl, model: "qwen3-4b" });
    await expect(engine.complete({ messages: ask, thinking: false })).rejects.toThrow(/temperature must be positive/);
    server.scripts.sub = "ok";
  });
});

describe("WebLLM engine", () => {
  const requests: WorkerCompletionRequest[] = [];
  const worker = {
    async complete(request: WorkerCompletionRequest) {
      requests.push(request);
      return { text: "done", finishReason: "stop", usage: null, model: "m" };
    },
    async interrupt() {},
    async state() {
      return { loadedModelId: null, contextWindow: null, loading: false, deviceLost: null };
    },
  } as unknown as ModelWorkerApi;
  const qwen3 = findCatalogEntry("Qwen3-1.7B-q4f16_1-MLC")!;
  const qwen25 = findCatalogEntry("Qwen2.5-0.5B-Instruct-q4f16_1-MLC")!;

  it("passes the stop sequences to the worker", async () => {
    await new WebLLMEngine({ worker, model: qwen25 }).complete({ messages: ask, stop: ROOT_STOP_SEQUENCES });
    expect(requests.at(-1)!.stop).toEqual([...ROOT_STOP_SEQUENCES]);
    await new WebLLMEngine({ worker, model: qwen25 }).complete({ messages: ask });
    expect(requests.at(-1)).not.toHaveProperty("stop");
  });

  it("a request's thinking switch overrides the engine's setting, for Qwen3 only", async () => {
    const thinkingRoot = new WebLLMEngine({ worker, model: qwen3, thinking: true });
    await thinkingRoot.complete({ messages: ask });
    await thinkingRoot.complete({ messages: ask, thinking: false });
    await new WebLLMEngine({ worker, model: qwen25 }).complete({ messages: ask, thinking: false });
    expect(requests.slice(-3).map((r) => r.enableThinking)).toEqual([true, false, undefined]);
  });
});

describe("sub-call policy", () => {
  const budgets = deriveBudgets({ rootWindow: 4096, subWindow: 4096 });
  const engine = { contextWindow: 4096, model: "sub" };
  const reply = (text: string): ChatResult => ({
    text,
    usage: { promptTokens: 5, completionTokens: 2 },
    usageEstimated: false,
    finishReason: "stop",
    model: "sub",
  });

  it("caps the reply, turns thinking off, and passes sampling through", () => {
    const req = new SubcallPolicy({ budgets, sampling: { seed: 3 } }).request("question", engine);
    expect(req).toMatchObject({
      maxTokens: budgets.subMaxTokens,
      thinking: false,
      sampling: { seed: 3 },
      messages: [{ role: "user", content: "question" }],
    });
    expect(new SubcallPolicy({ budgets, thinking: true }).request("q", engine).thinking).toBe(true);
  });

  it("refuses a prompt over the sub-model's window with the size and the limit, never cutting it", () => {
    const policy = new SubcallPolicy({ budgets });
    const big = "x".repeat(20_000);
    expect(() => policy.request(big, engine)).toThrow(SubcallTooLongError);
    expect(() => policy.request(big, engine)).toThrow(
      /about 5,715 tokens but the helper model reads at most 3,072\. Split it into pieces of at most 8,000 characters/,
    );
    expect(() => policy.request("x".repeat(10_000), engine)).not.toThrow();
  });

  it("answers an identical prompt once per run, even when asked at the same time", async () => {
    const policy = new SubcallPolicy({ budgets });
    const sent: ChatRequest[] = [];
    const send = async (r: ChatRequest) => {
      sent.push(r);
      await new Promise((res) => setTimeout(res, 5));
      return reply("<think>hmm</think> 42 ");
    };
    const [a, b] = await Promise.all([policy.run("same", engine, send), policy.run("same", engine, send)]);
    const c = await policy.run("same", engine, send);
    const d = await policy.run("other", engine, send);
    expect(sent).toHaveLength(2);
    expect([a.cached, b.cached, c.cached, d.cached]).toEqual([false, true, true, false]);
    expect(a.text).toBe("42");
    expect(c.text).toBe("42");
  });

  it("does not remember failures, and keeps models apart", async () => {
    const policy = new SubcallPolicy({ budgets });
    let calls = 0;
    const flaky = async () => {
      calls += 1;
      if (calls === 1) throw new Error("HTTP 500");
      return reply("fine");
    };
    await expect(policy.run("p", engine, flaky)).rejects.toThrow("HTTP 500");
    expect((await policy.run("p", engine, flaky)).text).toBe("fine");
    expect((await policy.run("p", engine, flaky, "other-model")).cached).toBe(false);
    expect(calls).toBe(3);
  });

  it("can be told not to memoise", async () => {
    const policy = new SubcallPolicy({ budgets, memoize: false });
    let calls = 0;
    const send = async () => {
      calls += 1;
      return reply("x");
    };
    await policy.run("p", engine, send);
    await policy.run("p", engine, send);
    expect(calls).toBe(2);
  });
});
