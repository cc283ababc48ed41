import { describe, expect, it } from "vitest";
import type { EngineStatus } from "../../src/app/engines.svelte.ts";
import { engineChipText, waitingText } from "../../src/app/run-status.ts";

const loading: EngineStatus = { state: "loading", label: "Qwen", progress: 0.42, detail: "Fetching param cache[3/20]: 120MB" };
const ready: EngineStatus = { state: "ready", label: "m @ h", detail: "8,192-token window" };

describe("what a running question says it is doing", () => {
  it("says it waits for the model, with its loading progress, before the first turn", () => {
    expect(waitingText({ waitingFor: "model", turns: [] }, loading)).toBe(
      "Waiting for the model: 42% loaded. Fetching param cache[3/20]: 120MB",
    );
    expect(waitingText({ waitingFor: "python", turns: [] }, ready)).toBe("Waiting for Python to start…");
    expect(waitingText({ waitingFor: "documents", turns: [] }, ready)).toBe("Loading the documents into Python…");
  });

  it("says the model explores only once a turn has started", () => {
    expect(waitingText({ turns: [] }, ready)).toBe("Starting…");
    expect(waitingText({ turns: [{} as never] }, ready)).toBe("The model is exploring the document…");
  });
});

describe("the model chip", () => {
  it("says in words whether the model can answer", () => {
    expect(engineChipText(ready, "openai")).toBe("m @ h · connected");
    // The failure's own words ("not reachable", "model not offered"), else the engine's: "not
    // reachable" for every failure was untrue of a server that answered without the model.
    expect(engineChipText({ state: "error", label: "m @ h", message: "refused", canReload: false, brief: "not reachable" }, "openai")).toBe(
      "m @ h · not reachable",
    );
    expect(engineChipText({ state: "error", label: "m @ h", message: "HTTP 500", canReload: false }, "openai")).toBe(
      "m @ h · not available",
    );
    expect(engineChipText(loading, "webllm")).toBe("Qwen · loading 42%");
    const idle: EngineStatus = { state: "idle", label: "Qwen (in browser)" };
    expect(engineChipText(idle, "webllm", "none")).toBe("Qwen (in browser) · not downloaded");
    expect(engineChipText(idle, "webllm", "partial")).toBe("Qwen (in browser) · partly downloaded");
    expect(engineChipText(idle, "webllm", "complete")).toBe("Qwen (in browser) · downloaded, not loaded");
    expect(engineChipText(idle, "webllm")).toBe("Qwen (in browser)");
  });
});
