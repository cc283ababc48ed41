// Status that never lies (issue 28, item 5): the chip is green and the start's model step done only
// when the model works, every status comes from its engine's host, and a failed call feeds the
// status instead of leaving it at "connected".
import { afterEach, describe, expect, it, vi } from "vitest";
import { EngineManager } from "../../src/app/engines.svelte.ts";
import { modelView } from "../../src/app/run-status.ts";
import { DEFAULT_SETTINGS, type Settings } from "../../src/app/settings.ts";
import type { EngineStatus } from "../../src/engines/descriptor.ts";
import {
  ContextWindowExceededError,
  EngineAbortedError,
  EngineError,
  EngineHttpError,
  EngineProtocolError,
  EngineUnreachableError,
  meansModelUnavailable,
} from "../../src/engines/errors.ts";
import type { ChatEngine } from "../../src/engines/types.ts";
import { startScriptedServer, type ScriptedServer } from "../fixtures/scripted-server.ts";

const idle: EngineStatus = { state: "idle", label: "Qwen (in browser)" };
const ready: EngineStatus = { state: "ready", label: "m @ h", detail: "reachable" };
const failed: EngineStatus = { state: "error", label: "m @ h", message: "Could not reach", canReload: false, brief: "not reachable" };
const works = { download: undefined, missing: false, available: true } as const;

describe("the one view of the model: chip colour, chip words and the start's model step", () => {
  it("is green and done only when the model answered or loaded", () => {
    expect(modelView(ready, "openai", works)).toEqual({
      text: "m @ h · connected",
      label: "m @ h",
      state: "connected",
      tone: "ok",
      done: true,
      canAsk: true,
    });
    expect(modelView({ state: "connecting", label: "m @ h" }, "openai", works)).toMatchObject({ tone: "busy", done: false, canAsk: true });
    // Never checked (no model yet, or the check has not run): not done.
    expect(modelView({ state: "idle", label: "m @ h" }, "openai", works)).toMatchObject({ tone: "none", done: false });
  });

  it("is red, not done, and takes no suggested question when the model cannot answer", () => {
    expect(modelView(failed, "openai", works)).toEqual({
      text: "m @ h · not reachable",
      label: "m @ h",
      // The chip keeps these words whole on a phone and shortens the label instead.
      state: "not reachable",
      tone: "err",
      done: false,
      canAsk: false,
    });
  });

  it("a local model is done once it is kept in this browser, never when it is not downloaded", () => {
    expect(modelView(idle, "webllm", { ...works, download: "none" })).toEqual({
      text: "Qwen (in browser) · not downloaded",
      label: "Qwen (in browser)",
      state: "not downloaded",
      tone: "none",
      done: false,
      // A typed question may still go: it downloads the model first, as the step says.
      canAsk: true,
    });
    expect(modelView(idle, "webllm", { ...works, download: "partial" })).toMatchObject({ done: false });
    // The cache not read yet is not "downloaded".
    expect(modelView(idle, "webllm", works)).toMatchObject({ done: false });
    expect(modelView(idle, "webllm", { ...works, download: "complete" })).toMatchObject({ tone: "none", done: true });
    const kept = modelView({ state: "idle", label: "tiny (llama.cpp, CPU)" }, "wllama", { ...works, download: "complete" });
    expect(kept).toMatchObject({ text: "tiny (llama.cpp, CPU) · kept, not loaded", done: true });
  });

  it("is not done when something is missing or the engine cannot run in this browser", () => {
    expect(modelView(ready, "wllama", { ...works, missing: true })).toMatchObject({ done: false, canAsk: false });
    expect(modelView(idle, "webllm", { ...works, download: "complete", available: false })).toMatchObject({ done: false, canAsk: false });
    expect(modelView(idle, "webllm", { ...works, download: "complete", available: null })).toMatchObject({ done: false });
  });
});

describe("which failures say the model cannot answer", () => {
  it("unreachable, a refused key, no such model, a broken server, a stopped worker: yes", () => {
    expect(meansModelUnavailable(new EngineUnreachableError("http://h/v1", "Failed to fetch"))).toBe(true);
    for (const status of [401, 403, 404, 500, 503]) expect(meansModelUnavailable(new EngineHttpError(status, ""))).toBe(true);
    expect(meansModelUnavailable(new EngineProtocolError("the body is not JSON"))).toBe(true);
    expect(meansModelUnavailable(new EngineError("The llama.cpp worker stopped"))).toBe(true);
  });

  it("a stop, a prompt too long, a rate limit or a refused request: no, the model still answers", () => {
    expect(meansModelUnavailable(new EngineAbortedError())).toBe(false);
    expect(meansModelUnavailable(new ContextWindowExceededError("too long"))).toBe(false);
    expect(meansModelUnavailable(new EngineHttpError(429, ""))).toBe(false);
    expect(meansModelUnavailable(new EngineHttpError(400, "bad field"))).toBe(false);
    expect(meansModelUnavailable(new TypeError("a bug of ours"))).toBe(false);
  });
});

describe("the endpoint's status follows what the server does", () => {
  let server: ScriptedServer | undefined;
  afterEach(async () => server?.close());

  function endpoint(baseUrl: string, patch: Partial<Settings["openai"]> = {}) {
    const settings: Settings = structuredClone(DEFAULT_SETTINGS);
    settings.backend = "openai";
    settings.openai = { ...settings.openai, baseUrl, model: "root-model", ...patch };
    const manager = new EngineManager(
      () => settings,
      () => undefined,
      null,
    );
    return { settings, manager };
  }

  const ask = (engine: ChatEngine) =>
    engine.complete({
      messages: [
        { role: "system", content: "s" },
        { role: "user", content: "hi" },
      ],
    });

  it("a question on an endpoint that went away fails, and the status says not reachable (it stayed connected)", async () => {
    server = await startScriptedServer({ contextWindow: 8192, root: "FINAL(x)" });
    const { manager } = endpoint(server.baseUrl);
    await manager.probe();
    expect(manager.view).toMatchObject({ tone: "ok", done: true });
    const { root } = await manager.forRun();
    await server.close();
    await expect(ask(root)).rejects.toThrow(/Could not reach the model server/);
    expect(manager.status).toMatchObject({ state: "error", brief: "not reachable" });
    expect(manager.view).toMatchObject({ text: expect.stringMatching(/· not reachable$/), tone: "err", done: false });
    // The next question asks the server again instead of reusing the dead engine, and fails at once.
    await expect(manager.forRun()).rejects.toThrow(/Could not reach the model server/);
    expect(manager.status.state).toBe("error");
  });

  it("a server that refuses connections never turns green: not on a question, not on Try again", async () => {
    const { manager } = endpoint("http://127.0.0.1:9/v1");
    await manager.probe();
    expect(manager.status.state).toBe("error");
    await expect(manager.forRun()).rejects.toThrow(/Could not reach the model server/);
    expect(manager.status.state).toBe("error");
    // The banner's Try again (the controller's retryModel): settings "changed", then a run's engines.
    manager.settingsChanged();
    await manager.forRun().catch(() => undefined);
    expect(manager.status).toMatchObject({ state: "error", brief: "not reachable" });
  });

  it("a server that fails calls turns red with why, and green again when a call answers", async () => {
    server = await startScriptedServer({ contextWindow: 8192 });
    const { manager } = endpoint(server.baseUrl);
    const { root } = await manager.forRun();
    expect(manager.status.state).toBe("ready");
    server.scripts.root = { text: "", status: 500, error: "CUDA out of memory" };
    await expect(ask(root)).rejects.toThrow(/HTTP 500/);
    expect(manager.status).toMatchObject({ state: "error", message: expect.stringMatching(/CUDA out of memory/) });
    server.scripts.root = "FINAL(x)";
    await ask(root);
    expect(manager.status).toMatchObject({ state: "ready", detail: "reachable · 8,192-token window" });
  });

  it("a request turned down (too long, rate-limited) leaves a working endpoint green", async () => {
    server = await startScriptedServer({ contextWindow: 8192 });
    const { manager } = endpoint(server.baseUrl);
    const { root } = await manager.forRun();
    server.scripts.root = { text: "", status: 400, error: "This model's maximum context length is 8192 tokens" };
    await expect(ask(root)).rejects.toThrow(/context window/);
    server.scripts.root = { text: "", status: 429, error: "slow down" };
    await expect(ask(root)).rejects.toThrow(/HTTP 429/);
    expect(manager.status.state).toBe("ready");
  });

  it("a failing sub-call model keeps the status red while the root model answers", async () => {
    server = await startScriptedServer({ contextWindow: 8192, models: [] });
    const { manager } = endpoint(server.baseUrl, { subModel: "sub-model" });
    const { root, sub } = await manager.forRun();
    server.scripts.sub = { text: "", status: 404, error: "The model `sub-model` does not exist." };
    server.scripts.root = "FINAL(x)";
    await expect(sub.complete({ messages: [{ role: "user", content: "hi" }] })).rejects.toThrow(/HTTP 404/);
    await root.complete({
      messages: [
        { role: "system", content: "s" },
        { role: "user", content: "hi" },
      ],
    });
    expect(manager.status).toMatchObject({ state: "error", message: expect.stringMatching(/^The sub-call model sub-model: /) });
  });

  it("a server without a model list is still asked, with the window the person set, and is green once it answers", async () => {
    server = await startScriptedServer({ contextWindow: 8192, root: "FINAL(x)" });
    const realFetch = globalThis.fetch;
    vi.stubGlobal("fetch", (async (input: RequestInfo | URL, init?: RequestInit) =>
      String(input).endsWith("/models") ? new Response("no such route", { status: 404 }) : realFetch(input, init)) as typeof fetch);
    try {
      const { manager } = endpoint(server.baseUrl, { contextWindow: 32768 });
      const { root } = await manager.forRun();
      expect(manager.status).toMatchObject({ state: "error", brief: "not available" });
      expect(root.contextWindow).toBe(32768);
      await ask(root);
      expect(manager.status.state).toBe("ready");
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("a sub-call model the server does not list is named before any question", async () => {
    server = await startScriptedServer({ contextWindow: 8192 });
    const { manager } = endpoint(server.baseUrl, { subModel: "sub-typo" });
    await manager.probe();
    expect(manager.status).toMatchObject({ state: "error", brief: "model not offered" });
    expect(manager.status.state === "error" && manager.status.message).toMatch(/does not offer the sub-call model sub-typo/);
  });

  it("another setting (an effort) keeps what is known; another endpoint starts from checking", async () => {
    const { settings, manager } = endpoint("http://127.0.0.1:9/v1");
    await manager.probe();
    expect(manager.status.state).toBe("error");
    settings.run = { ...settings.run, maxIterations: 6, maxSubcalls: 20 }; // Quick
    manager.settingsChanged();
    expect(manager.status.state).not.toBe("idle");
    server = await startScriptedServer({ contextWindow: 4096 });
    settings.openai = { ...settings.openai, baseUrl: server.baseUrl };
    manager.settingsChanged();
    expect(manager.status.state).toBe("connecting");
    await expect.poll(() => manager.status.state).toBe("ready");
  });
});

describe("llama.cpp in the page: a file that failed to load", () => {
  function memoryStorage(initial: Record<string, string> = {}) {
    const items = new Map(Object.entries(initial));
    return {
      getItem: (k: string) => items.get(k) ?? null,
      setItem: (k: string, v: string) => void items.set(k, v),
      removeItem: (k: string) => void items.delete(k),
    };
  }

  it("is still red after a reload, for the settings it failed with; another window is tried afresh", () => {
    const settings: Settings = structuredClone(DEFAULT_SETTINGS);
    settings.backend = "wllama";
    settings.wllama = { modelId: "mystery-arch", contextWindow: 0, threads: 0 };
    const failure = { key: JSON.stringify(["mystery-arch", 0, 0]), message: 'llama.cpp does not know the model architecture "qwenx".' };
    const storage = memoryStorage({ "rlm.wllama.loadFailure": JSON.stringify(failure) });
    const manager = new EngineManager(
      () => settings,
      () => undefined,
      storage,
    );
    expect(manager.status).toMatchObject({ state: "error", message: failure.message });
    expect(manager.view).toMatchObject({ tone: "err", done: false });
    settings.wllama = { ...settings.wllama, contextWindow: 2048 };
    manager.settingsChanged();
    expect(manager.status.state).toBe("idle");
  });
});
