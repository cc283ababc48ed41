import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EngineManager } from "../../src/app/engines.svelte.ts";
import { DEFAULT_SETTINGS, type Settings } from "../../src/app/settings.ts";
import { startScriptedServer, type ScriptedServer } from "../fixtures/scripted-server.ts";

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer({ contextWindow: 8192 });
});
afterAll(async () => server?.close());

function manager(baseUrl: string, model = "root-model"): EngineManager {
  const s: Settings = structuredClone(DEFAULT_SETTINGS);
  s.backend = "openai";
  s.openai = { ...s.openai, baseUrl, model };
  return new EngineManager(() => s);
}

describe("the endpoint's status is checked against the server", () => {
  it("is ready only when the server answers and lists the model", async () => {
    const m = manager(server.baseUrl);
    await m.probe();
    expect(m.status).toMatchObject({ state: "ready", detail: "reachable · 8,192-token window" });
  });

  it("a server that refuses connections is an error that says why", async () => {
    const m = manager("http://127.0.0.1:9/v1");
    await m.probe();
    expect(m.status.state).toBe("error");
    expect(m.status.state === "error" && m.status.message).toMatch(/Could not reach the model server/);
  });

  it("a model the server does not offer is an error naming the ones it does", async () => {
    const m = manager(server.baseUrl, "qwen-typo");
    await m.probe();
    expect(m.status.state === "error" && m.status.message).toMatch(/does not offer the model qwen-typo \(it lists root-model, sub-model\)/);
  });
});
