// Sampling settings are one value (src/core/sampling.ts): the run's settings reach every request
// whole, so no request builder can drop one of them (the benchmark's direct answers used to lose top-p).
import { describe, expect, it } from "vitest";
import { deriveBudgets } from "../../src/core/budgets.ts";
import { rootRequest } from "../../src/core/root-request.ts";
import { openAiSampling, samplingOf } from "../../src/core/sampling.ts";
import { SubcallPolicy } from "../../src/core/subcall-policy.ts";
import { runMetadata } from "../../src/core/trajectory.ts";
import { DEFAULT_CONFIG, type RlmConfig } from "../../src/core/types.ts";
import { planTasks } from "../../src/bench/plan.ts";
import { MemoryResultStore } from "../../src/bench/results.ts";
import { runBench } from "../../src/bench/runner.ts";
import type { ChatEngine, ChatRequest } from "../../src/engines/types.ts";

const sampling = { temperature: 0.3, topP: 0.8, seed: 7 };
const config: RlmConfig = { ...DEFAULT_CONFIG, sampling };
const budgets = deriveBudgets({ rootWindow: 8192, subWindow: 8192 });

function recordingEngine(): { engine: ChatEngine; requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  const engine: ChatEngine = {
    model: "m",
    backend: "test",
    contextWindow: 8192,
    maxConcurrency: 1,
    async complete(request) {
      requests.push(request);
      return { text: "42", usage: { promptTokens: 10, completionTokens: 1 }, usageEstimated: true, finishReason: "stop", model: "m" };
    },
  };
  return { engine, requests };
}

describe("sampling settings travel as one value", () => {
  it("reach the root's and the sub-calls' requests whole", () => {
    expect(rootRequest(config, budgets, [{ role: "user", content: "q" }]).sampling).toEqual(sampling);
    expect(new SubcallPolicy({ budgets, sampling }).request("q", { contextWindow: 8192 }).sampling).toEqual(sampling);
  });

  it("reach the benchmark's direct answers whole, top-p included", async () => {
    const { engine, requests } = recordingEngine();
    const tasks = planTasks({ suites: ["niah"], sizes: [4_000], seed: 1 }).slice(0, 1);
    await runBench({ tasks, methods: ["vanilla"], rootEngine: engine, config: { sampling }, store: new MemoryResultStore() });
    expect(requests.map((r) => r.sampling)).toEqual([sampling]);
  });

  it("keep OpenAI's names in the trajectory, and leave out what is not set", () => {
    const label = { model: "m", backend: "test", contextWindow: 8192 };
    expect(runMetadata(label, label, config).backend_kwargs).toMatchObject({ temperature: 0.3, top_p: 0.8, seed: 7 });
    expect(openAiSampling({ temperature: 0 })).toEqual({ temperature: 0 });
    expect(openAiSampling(undefined)).toEqual({});
  });

  it("are taken from a settings form whose unset fields are null", () => {
    expect(samplingOf({ temperature: null, topP: 0.9, seed: 0 })).toEqual({ topP: 0.9, seed: 0 });
  });
});
