// The OpenAI-compatible engine against the scripted server: streaming, plain JSON, usage,
// window discovery, and each failure a user can meet. Twice: with the platform's fetch (the page)
// and with the command line's fetch over node:http (src/node/http-fetch.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ContextWindowExceededError,
  EngineAbortedError,
  EngineHttpError,
  EngineUnreachableError,
  OpenAIEngine,
  normalizeBaseUrl,
} from "../../src/engines/index.ts";
import { nodeHttpFetch } from "../../src/node/http-fetch.ts";
import { startScriptedServer, type ScriptedServer } from "../fixtures/scripted-server.ts";

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer({ contextWindow: 32_768, chunkChars: 3 });
});
afterAll(async () => server?.close());

const ask = [{ role: "user" as const, content: "hi" }];

describe.each([
  ["the platform's fetch", undefined],
  ["fetch over node:http", nodeHttpFetch],
] as const)("OpenAIEngine with %s", (_name, fetch) => {
  const withFetch = fetch ? { fetch } : {};
  it("streams tokens and reports usage", async () => {
    server.scripts.sub = "Hello there, friend.";
    const engine = new OpenAIEngine({ ...withFetch, baseUrl: server.baseUrl, model: "m", contextWindow: 4096 });
    const pieces: string[] = [];
    const result = await engine.complete(
      { messages: ask, maxTokens: 50, sampling: { temperature: 0.2, topP: 0.9, seed: 7 } },
      { onToken: (t) => pieces.push(t) },
    );
    expect(result.text).toBe("Hello there, friend.");
    expect(pieces.length).toBeGreaterThan(3);
    expect(pieces.join("")).toBe(result.text);
    expect(result.usage.completionTokens).toBeGreaterThan(0);
    expect(result.usageEstimated).toBe(false);
    const body = server.requests.at(-1)!.body;
    expect(body).toMatchObject({ model: "m", max_tokens: 50, temperature: 0.2, top_p: 0.9, seed: 7, stream: true });
  });

  it("reads plain JSON replies and estimates missing usage", async () => {
    server.scripts.sub = { text: "plain", noUsage: true };
    const engine = new OpenAIEngine({ ...withFetch, baseUrl: server.baseUrl, model: "m", stream: false });
    const result = await engine.complete({ messages: ask });
    expect(result.text).toBe("plain");
    expect(result.usageEstimated).toBe(true);
    expect(result.usage.promptTokens).toBeGreaterThan(0);
  });

  it("reads the context window from /v1/models", async () => {
    const engine = await OpenAIEngine.connect({ ...withFetch, baseUrl: server.url, model: "root-model" });
    expect(engine.contextWindow).toBe(32_768);
    expect(engine.baseUrl).toBe(`${server.url}/v1`);
  });

  it("maps failures to errors that say what to do", async () => {
    const engine = new OpenAIEngine({ ...withFetch, baseUrl: server.baseUrl, model: "m" });
    server.scripts.sub = { text: "", status: 401, error: "bad key" };
    await expect(engine.complete({ messages: ask })).rejects.toThrow(/refused the API key/);
    server.scripts.sub = { text: "", status: 400, error: "This model's maximum context length is 4096 tokens" };
    await expect(engine.complete({ messages: ask })).rejects.toBeInstanceOf(ContextWindowExceededError);
    server.scripts.sub = { text: "", status: 503, error: "overloaded" };
    const err = await engine.complete({ messages: ask }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineHttpError);
    expect((err as Error).message).toContain("overloaded");
    const dead = new OpenAIEngine({ ...withFetch, baseUrl: "http://127.0.0.1:9/v1", model: "m" });
    await expect(dead.complete({ messages: ask })).rejects.toBeInstanceOf(EngineUnreachableError);
  });

  it("aborts a hanging request", async () => {
    server.scripts.sub = { text: "", hang: true };
    const engine = new OpenAIEngine({ ...withFetch, baseUrl: server.baseUrl, model: "m" });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(engine.complete({ messages: ask }, { signal: controller.signal })).rejects.toBeInstanceOf(EngineAbortedError);
  });

  it("normalizes base URLs and rejects nonsense", () => {
    expect(normalizeBaseUrl("http://h:1")).toBe("http://h:1/v1");
    expect(normalizeBaseUrl("http://h:1/v1/")).toBe("http://h:1/v1");
    expect(normalizeBaseUrl("https://api.example.com/openai/v1")).toBe("https://api.example.com/openai/v1");
    expect(() => normalizeBaseUrl("localhost")).toThrow(/not a valid URL/);
  });
});
