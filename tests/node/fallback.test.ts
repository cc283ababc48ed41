// The harness's own map-reduce with real Pyodide over generated benchmark documents: it answers
// without any help from the root model, says it was the fallback, and points at its sources.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planTasks } from "../../src/bench/plan.ts";
import { loadTaskContext } from "../../src/bench/runner.ts";
import { scoreAnswer } from "../../src/bench/scoring.ts";
import type { BenchTask } from "../../src/bench/types.ts";
import { deriveBudgets } from "../../src/core/budgets.ts";
import { runFallback } from "../../src/core/fallback.ts";
import type { ReplClient } from "../../src/repl/client.ts";
import type { ScriptedRequest } from "../fixtures/scripted-server.ts";
import { chunkSubModel } from "../fixtures/weak-model.ts";
import { startRepl } from "./helpers.ts";

let repl: ReplClient;
beforeAll(async () => {
  repl = await startRepl("auto");
});
afterAll(() => repl?.close());

const subModel = chunkSubModel();
const asSub = (prompt: string) =>
  subModel({
    model: "sub",
    messages: [{ role: "user", content: prompt }],
    stream: false,
    maxTokens: undefined,
    body: {},
    isRoot: false,
    turn: 0,
    lastUser: prompt,
    firstUser: prompt,
  } satisfies ScriptedRequest);

async function fallbackOn(task: BenchTask, maxChunks = 40) {
  await loadTaskContext(repl, task);
  let calls = 0;
  const result = await runFallback({
    repl,
    question: task.question,
    subcall: async (p) => {
      calls += 1;
      return asSub(p);
    },
    budgets: deriveBudgets({ rootWindow: 4096, subWindow: 4096 }),
    maxChunks,
  });
  return { result, calls };
}

describe("the fallback over real documents", () => {
  it("finds an S-NIAH needle and cites the piece that held it", async () => {
    const task = planTasks({ suites: ["niah"], sizes: [28_000], seed: 4, niah: { depths: [0.5] } })[0]!.build();
    const { result, calls } = await fallbackOn(task);
    expect(scoreAnswer(task.expected, result.answer)).toBe(1);
    expect(result.producedBy).toBe("fallback");
    expect(calls).toBe(result.subcalls);
    const offset = task.meta!.offset as number;
    expect(result.sources.some((s) => s.start <= offset && offset < s.end)).toBe(true);
  });

  it("answers an OOLONG count by adding up per-piece counts", async () => {
    const task = planTasks({ suites: ["oolong"], sizes: [28_000], seed: 4, oolong: { kinds: ["count"] } })[0]!.build();
    const { result } = await fallbackOn(task);
    expect(scoreAnswer(task.expected, result.answer)).toBe(1);
    expect(result.partial).toBe(false);
  });

  it("stays within its bound on a document far bigger than the bound, reading the likely pieces", async () => {
    const task = planTasks({ suites: ["niah"], sizes: [448_000], seed: 5, niah: { depths: [0.9] } })[0]!.build();
    const { result, calls } = await fallbackOn(task, 8);
    expect(result.chunksRead).toBe(8);
    expect(result.partial).toBe(true);
    expect(calls).toBeLessThanOrEqual(9);
    expect(scoreAnswer(task.expected, result.answer)).toBe(1);
  });
});
