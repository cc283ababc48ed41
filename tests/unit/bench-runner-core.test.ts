// The runner's bookkeeping without a REPL: the vanilla method's cut to the window, resume from a
// store, progress events, error retries, the model guard, the summary table and the charts.
import { describe, expect, it } from "vitest";
import { ContextWindowExceededError } from "../../src/engines/errors.ts";
import { estimateMessagesTokens } from "../../src/engines/tokens.ts";
import type { ChatEngine, ChatRequest, ChatResult } from "../../src/engines/types.ts";
import { planTasks } from "../../src/bench/plan.ts";
import { accuracyChart, benchCharts, perTaskChart } from "../../src/bench/plots.ts";
import { formatSummaryTable, latestResults, MemoryResultStore, parseResultsJsonl, resultLine, summarize } from "../../src/bench/results.ts";
import { BenchModelMismatchError, MissingReplError, runBench, type BenchProgress } from "../../src/bench/runner.ts";
import type { BenchResult } from "../../src/bench/types.ts";
import { answerDirectly, fitDocument, flattenContext, VANILLA_SYSTEM_PROMPT } from "../../src/bench/vanilla.ts";
import { niahTask } from "../../src/bench/suites/niah.ts";

/** A test engine: answers with whatever the test's function says and records every request. */
function testEngine(reply: (req: ChatRequest) => string | Error, window = 4096, model = "test-model") {
  const requests: ChatRequest[] = [];
  const engine: ChatEngine = {
    model,
    backend: "test",
    contextWindow: window,
    maxConcurrency: 1,
    async complete(request): Promise<ChatResult> {
      requests.push(request);
      const out = reply(request);
      if (out instanceof Error) throw out;
      const promptTokens = estimateMessagesTokens(request.messages);
      return { text: out, usage: { promptTokens, completionTokens: 5 }, usageEstimated: true, finishReason: "stop", model };
    },
  };
  return { engine, requests };
}

/** Answers a NIAH question only when the needle is in what the model was shown. */
const needleReader = (req: ChatRequest) =>
  /special magic numbers for [\w-]+ is: (\d+)/.exec(req.messages[1]!.content)?.[1] ?? "I cannot find it.";

describe("vanilla: the document cut to the window", () => {
  it("cuts the middle and says how much was cut", async () => {
    const doc = "A".repeat(500) + "B".repeat(9_000) + "C".repeat(500);
    const fitted = await fitDocument(doc, 1_000);
    expect(fitted.shownChars).toBe(1_000);
    expect(fitted.text.startsWith("A".repeat(500))).toBe(true);
    expect(fitted.text.endsWith("C".repeat(500))).toBe(true);
    expect(fitted.text).toContain("[... 9,000 characters cut here ...]");
    expect(fitted.note).toContain("10,000 characters long and only 1,000 (10.0%)");
    expect(await fitDocument("short", 1_000)).toEqual({ text: "short", shownChars: 5, note: "" });
    expect((await fitDocument(doc, 1_000, "end")).text.startsWith("A".repeat(500) + "B".repeat(500))).toBe(true);
  });

  it("flattens a repository with a header per file, in path order", () => {
    expect(flattenContext({ kind: "files", files: { "b.js": "two", "a.js": "one" } })).toBe("=== a.js ===\none\n\n=== b.js ===\ntwo");
  });

  it("fills the window without overflowing it, and loses a needle in the cut middle", async () => {
    const { engine, requests } = testEngine(needleReader, 4096);
    const middle = niahTask("m", { size: 100_000, depth: 0.5, seed: 1 });
    const edge = niahTask("e", { size: 100_000, depth: 0.02, seed: 1 }); // inside the kept head
    const lost = await answerDirectly(middle, engine);
    const found = await answerDirectly(edge, engine, { maxAnswerTokens: 256 });
    expect(lost.answer).toBe("I cannot find it.");
    expect(found.answer).toBe((edge.expected as { answer: string }).answer);
    for (const [i, req] of requests.entries()) {
      expect(req.messages[0]!.content).toBe(VANILLA_SYSTEM_PROMPT);
      // Prompt + answer budget fit in the window, and most of the window is used.
      const used = estimateMessagesTokens(req.messages) + req.maxTokens!;
      expect(used).toBeLessThanOrEqual(4096);
      expect(used).toBeGreaterThan(4096 * 0.9);
      expect(req.messages[1]!.content).toContain("Note: the document is 100,000 characters long");
      expect(i === 0 ? lost.shownChars : found.shownChars).toBeLessThan(100_000);
    }
    expect(found.shownChars).toBeGreaterThan(lost.shownChars); // a smaller answer budget leaves more room
  });

  it("retries with less text when the server says the prompt is too long", async () => {
    let calls = 0;
    const { engine, requests } = testEngine(() => (++calls === 1 ? new ContextWindowExceededError("too long") : "ok"));
    const out = await answerDirectly(niahTask("t", { size: 60_000, depth: 0.5, seed: 2 }), engine);
    expect(out.answer).toBe("ok");
    expect(requests).toHaveLength(2);
    expect(requests[1]!.messages[1]!.content.length).toBeLessThan(requests[0]!.messages[1]!.content.length * 0.75);
  });
});

describe("runBench bookkeeping (vanilla only, no REPL)", () => {
  const tasks = planTasks({ suites: ["niah"], sizes: [20_000, 40_000], seed: 3 });

  it("scores, stores, reports progress, and resumes without repeating work", async () => {
    const store = new MemoryResultStore();
    const { engine, requests } = testEngine(needleReader, 8192);
    const controller = new AbortController();
    const progress: BenchProgress[] = [];
    const first = await runBench({
      tasks,
      methods: ["vanilla"],
      rootEngine: engine,
      store,
      signal: controller.signal,
      onProgress: (p) => {
        progress.push(p);
        if (p.type === "task-finished" && p.done === 2) controller.abort();
      },
    });
    expect(first.stopped).toBe(true);
    expect(store.results).toHaveLength(2);
    expect(progress[0]).toEqual({ type: "planned", total: 6, alreadyDone: 0 });
    expect(progress.at(-1)).toEqual({ type: "finished", done: 2, total: 6, stopped: true });

    const second = await runBench({ tasks, methods: ["vanilla"], rootEngine: engine, store });
    expect(second).toMatchObject({ ran: 4, skipped: 2, stopped: false });
    expect(requests).toHaveLength(6);
    expect(store.results.map((r) => r.taskId)).toEqual(tasks.map((t) => t.id));
    // 20K fits entirely in an 8K-token window; at 40K the middle needle is cut away.
    const byId = new Map(store.results.map((r) => [r.taskId, r]));
    expect(byId.get("niah/20K/depth-50/0")).toMatchObject({ score: 1, status: "answered", shownChars: 20_000 });
    expect(byId.get("niah/40K/depth-50/0")).toMatchObject({ score: 0, status: "answered" });
    expect(byId.get("niah/40K/depth-90/0")?.score).toBe(1);
    for (const r of store.results) {
      expect(r.tokens).toBe(r.promptTokens + r.completionTokens);
      expect(r.expected).toMatch(/^\d{7}$/);
      expect(r.model).toBe("test-model");
    }
  });

  it("retries harness errors on the next run and keeps the latest line", async () => {
    const store = new MemoryResultStore();
    const failing = testEngine(() => new Error("server down"), 8192);
    const one = tasks.slice(0, 1);
    await runBench({ tasks: one, methods: ["vanilla"], rootEngine: failing.engine, store });
    expect(store.results[0]).toMatchObject({ status: "error", message: "server down", score: 0 });
    const working = testEngine(needleReader, 8192);
    const again = await runBench({ tasks: one, methods: ["vanilla"], rootEngine: working.engine, store });
    expect(again.ran).toBe(1);
    expect(store.results).toHaveLength(2);
    expect(again.results).toHaveLength(1);
    expect(again.results[0]).toMatchObject({ status: "answered", score: 1 });
  });

  it("refuses to mix two models in one results file", async () => {
    const store = new MemoryResultStore();
    await runBench({ tasks: tasks.slice(0, 1), methods: ["vanilla"], rootEngine: testEngine(needleReader, 8192, "model-a").engine, store });
    await expect(
      runBench({ tasks, methods: ["vanilla"], rootEngine: testEngine(needleReader, 8192, "model-b").engine, store }),
    ).rejects.toBeInstanceOf(BenchModelMismatchError);
  });

  it("asks for a REPL when the rlm method has none", async () => {
    await expect(
      runBench({ tasks: tasks.slice(0, 1), methods: ["rlm"], rootEngine: testEngine(needleReader).engine, store: new MemoryResultStore() }),
    ).rejects.toBeInstanceOf(MissingReplError);
  });
});

function result(over: Partial<BenchResult>): BenchResult {
  return {
    taskId: "t",
    suite: "niah",
    size: 28_000,
    variant: "depth-50",
    seed: 1,
    method: "rlm",
    model: "m",
    score: 1,
    answer: "a",
    expected: "a",
    promptTokens: 90,
    completionTokens: 10,
    tokens: 100,
    timeMs: 1000,
    status: "answered",
    contextChars: 28_000,
    timestamp: "2026-01-01T00:00:00.000Z",
    ...over,
  };
}

describe("results files, summary and charts", () => {
  const results = [
    result({ taskId: "a", method: "vanilla", score: 1, tokens: 1000, timeMs: 500 }),
    result({ taskId: "a", method: "rlm", score: 1, tokens: 3000, timeMs: 4000 }),
    result({ taskId: "b", method: "vanilla", score: 0, tokens: 1000, timeMs: 700 }),
    result({ taskId: "b", method: "rlm", score: 0.5, tokens: 5000, timeMs: 6000 }),
    result({ taskId: "c", size: 8_000_000, method: "vanilla", score: 0, tokens: 2000, timeMs: 900 }),
    result({ taskId: "c", size: 8_000_000, method: "rlm", score: 1, tokens: 9000, timeMs: 9000, status: "error" }),
    result({ taskId: "d", suite: "oolong", variant: "count", method: "rlm", score: 0.75 }),
  ];

  it("reads JSONL back, skipping a line cut short by an interrupted write", () => {
    const text = results.map(resultLine).join("") + resultLine(results[0]!).slice(0, 40);
    expect(parseResultsJsonl(text)).toEqual(results);
    expect(parseResultsJsonl('\n{"not":"a result"}\n')).toEqual([]);
  });

  it("keeps the latest result per task × method", () => {
    const newer = result({ taskId: "a", method: "rlm", score: 0 });
    const latest = latestResults([...results, newer]);
    expect(latest).toHaveLength(results.length);
    expect(latest.find((r) => r.taskId === "a" && r.method === "rlm")?.score).toBe(0);
  });

  it("summarizes per suite × size × method with means and error counts", () => {
    const rows = summarize(results);
    expect(rows.map((r) => [r.suite, r.size, r.method])).toEqual([
      ["niah", 28_000, "vanilla"],
      ["niah", 28_000, "rlm"],
      ["niah", 8_000_000, "vanilla"],
      ["niah", 8_000_000, "rlm"],
      ["oolong", 28_000, "rlm"],
    ]);
    expect(rows[1]).toMatchObject({ tasks: 2, meanScore: 0.75, meanTokens: 4000, meanTimeMs: 5000, errors: 0 });
    expect(rows[3]!.errors).toBe(1);
    const table = formatSummaryTable(rows).split("\n");
    expect(table[0]).toMatch(/^\| suite +\| size \(chars\) \| method +\| tasks \| mean score \| mean time \| mean tokens \| errors \|$/);
    expect(table).toHaveLength(2 + rows.length);
    expect(table[3]).toContain("| 28K ");
    expect(table[3]).toContain("| 0.750 ");
    expect(table[3]).toContain("| 5.0 s ");
    expect(table[5]).toContain("| 8M ");
  });

  it("draws accuracy against context length, one line per method", () => {
    const svg = accuracyChart(results, "niah");
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg.trim().endsWith("</svg>")).toBe(true);
    expect(svg.match(/<polyline /g)).toHaveLength(2);
    expect(svg.match(/<circle /g)).toHaveLength(4);
    expect(svg).toContain(">28K<");
    expect(svg).toContain(">8M<");
    expect(svg).toContain("RLM: 28K → 0.8"); // (1 + 0.5) / 2, in a tooltip
    // The direct method is "Direct" wherever a person reads it (issue 28), never "vanilla".
    expect(svg).toContain(">Direct<");
    expect(svg).not.toMatch(/vanilla/i);
    // Open and close tags balance (a cheap well-formedness check without a DOM).
    const opened = (svg.match(/<(?!\/)[a-z]+[^>]*[^/]>/g) ?? []).length;
    const closed = (svg.match(/<\/[a-z]+>/g) ?? []).length;
    expect(opened).toBe(closed);
  });

  it("draws tokens and time per task as grouped bars, and escapes text", () => {
    const svg = perTaskChart([...results, result({ taskId: "x<&>", method: "rlm" })], "tokens");
    expect(svg.match(/<rect [^>]*fill="#1f77b4"/g)?.length).toBeGreaterThanOrEqual(5);
    expect(svg).toContain("x&lt;&amp;&gt;");
    expect(svg).not.toContain("x<&>");
    const charts = benchCharts(results).map((c) => c.name);
    expect(charts).toEqual(["accuracy.svg", "accuracy-niah.svg", "accuracy-oolong.svg", "tokens-per-task.svg", "time-per-task.svg"]);
  });
});
