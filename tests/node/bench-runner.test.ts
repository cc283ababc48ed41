// The benchmark runner end to end: real Pyodide (one REPL shared by every task), the scripted
// OpenAI-compatible server playing the root model (vanilla and RLM turns) and the sub-model,
// results in a JSONL file, resume after an interruption, summary and charts on disk.
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { planTasks } from "../../src/bench/plan.ts";
import { formatSummaryTable, parseResultsJsonl, summarize } from "../../src/bench/results.ts";
import { runBench, type BenchProgress } from "../../src/bench/runner.ts";
import { defaultCodeRepo, JsonlResultStore, trajectoryFileName, trajectoryWriter, writeBenchReport } from "../../src/bench/node.ts";
import { parseJsonl, runMetadata } from "../../src/core/trajectory.ts";
import { DEFAULT_CONFIG } from "../../src/core/types.ts";
import { generateOolongDocument } from "../../src/bench/suites/oolong.ts";
import type { TaskSpec } from "../../src/bench/types.ts";
import { VANILLA_SYSTEM_PROMPT } from "../../src/bench/vanilla.ts";
import type { ReplClient } from "../../src/repl/client.ts";
import { between, repl as code, startScriptedServer, type ScriptedRequest, type ScriptedServer } from "../fixtures/scripted-server.ts";
import { engines, startRepl } from "./helpers.ts";

let server: ScriptedServer;
let repl: ReplClient;
let dir: string;

const niahSpecs = planTasks({ suites: ["niah"], sizes: [28_000], seed: 1 });
const oolongSpecs = planTasks({ suites: ["oolong"], sizes: [40_000], seed: 1, oolong: { kinds: ["count"] } });
const codeRepo = defaultCodeRepo();
const codeSpecs = planTasks({ suites: ["code"], seed: 1, code: { ...codeRepo, kinds: ["function-file"] } });

/** The test's oracle for labelling OOLONG lines: the generator's own labelled copy. */
const oracle = new Map<string, string>();
for (const spec of oolongSpecs) {
  const doc = generateOolongDocument({ size: spec.size, seed: spec.seed, kind: "count" });
  doc.labelledText.split("\n").forEach((line, i) => oracle.set(doc.text.split("\n")[i]!, line.slice(line.lastIndexOf("|| Label: ") + 10)));
}

// --- what the scripted "model" does -----------------------------------------------------------

/** Vanilla: answers from whatever part of the document it was shown. */
function vanillaReply(req: ScriptedRequest): string {
  const shown = req.messages[1]!.content;
  const niah = /special magic number for ([\w-]+) mentioned/.exec(shown);
  if (niah) return new RegExp(`magic numbers for ${niah[1]} is: (\\d+)`).exec(shown)?.[1] ?? "I could not find it.";
  const label = /classified as label '([^']+)'/.exec(shown)?.[1];
  if (label) return `Answer: ${shown.split("\n").filter((l) => oracle.get(l) === label).length}`;
  const fn = /defines the function `(\w+)`/.exec(shown)?.[1];
  if (fn) {
    const at = shown.indexOf(`function ${fn}(`);
    const header = at < 0 ? null : [...shown.slice(0, at).matchAll(/^=== (.+) ===$/gm)].pop();
    return header ? header[1]! : "I do not know.";
  }
  return "?";
}

/** RLM root turns: explore with code, use sub-calls, then FINAL. */
function rlmReply(req: ScriptedRequest): string {
  const q = req.firstUser;
  const key = /special magic number for ([\w-]+) mentioned/.exec(q)?.[1];
  if (key) {
    return req.turn === 0
      ? code(
          [
            "import re",
            `m = re.search(r"special magic numbers for ${key} is: ", context)`,
            "window = context[max(0, m.start() - 300):m.end() + 300]",
            `reply = llm_query("<<" + window + ">> What is the special magic number for ${key}?")`,
            "print(reply)",
          ].join("\n"),
        )
      : code("FINAL(reply)");
  }
  const label = /classified as label '([^']+)'/.exec(q)?.[1];
  if (label) {
    return req.turn === 0
      ? code(
          [
            'lines = context.split("\\n")',
            'chunks = ["\\n".join(lines[i:i + 100]) for i in range(0, len(lines), 100)]',
            'replies = llm_query_batched(["Label each line, one label per line.\\n<<" + c + ">>" for c in chunks])',
            'labels = [l.strip() for r in replies for l in r.split("\\n") if l.strip()]',
            "print(len(lines), len(labels))",
          ].join("\n"),
        )
      : code(`n = sum(1 for l in labels if l == ${JSON.stringify(label)})\nFINAL(f"Answer: {n}")`);
  }
  const fn = /defines the function `(\w+)`/.exec(q)?.[1];
  if (fn) {
    // Also proves the namespace was reset between tasks: `reply` from a NIAH task must be gone.
    return code(
      `hits = [p for p, t in context.items() if "function ${fn}(" in t]\nFINAL(hits[0] if "reply" not in globals() else "namespace leaked")`,
    );
  }
  return code("FINAL('?')");
}

function subReply(req: ScriptedRequest): string {
  const chunk = between(req.lastUser, "<<", ">>");
  if (req.lastUser.startsWith("Label each line"))
    return chunk
      .split("\n")
      .map((l) => oracle.get(l) ?? "entity")
      .join("\n");
  return /magic numbers for [\w-]+ is: (\d+)/.exec(chunk)?.[1] ?? "not found";
}

beforeAll(async () => {
  server = await startScriptedServer({
    contextWindow: 8192,
    root: (req) => (req.messages[0]?.content === VANILLA_SYSTEM_PROMPT ? vanillaReply(req) : rlmReply(req)),
    sub: subReply,
  });
  repl = await startRepl("auto");
  dir = mkdtempSync(join(tmpdir(), "rlm-bench-"));
});
afterAll(async () => {
  repl?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  server.requests.length = 0;
});

function run(tasks: TaskSpec[], file: string, extra: Partial<Parameters<typeof runBench>[0]> = {}) {
  const { root, sub } = engines(server);
  return runBench({
    tasks,
    rootEngine: root,
    subEngine: sub,
    repl,
    config: { maxIterations: 4, cellTimeoutMs: 30_000 },
    store: new JsonlResultStore(file),
    ...extra,
  });
}

describe("runBench with a real REPL", () => {
  it("runs vanilla and RLM on NIAH, OOLONG and code tasks, and writes results, summary and charts", async () => {
    const file = join(dir, "all.jsonl");
    const tasks = [...niahSpecs, ...oolongSpecs, ...codeSpecs];
    const progress: BenchProgress[] = [];
    const { root, sub } = engines(server);
    const trajectories = join(dir, "trajectories");
    const outcome = await run(tasks, file, {
      onProgress: (p) => progress.push(p),
      onRlmResult: trajectoryWriter(trajectories, runMetadata(root, sub, DEFAULT_CONFIG)),
    });
    expect(outcome).toMatchObject({ ran: 10, skipped: 0, stopped: false });

    const lines = readFileSync(file, "utf8").trim().split("\n");
    expect(lines).toHaveLength(10);
    const results = parseResultsJsonl(readFileSync(file, "utf8"));
    const get = (id: string, method: string) => results.find((r) => r.taskId === id && r.method === method)!;

    // The RLM finds everything; every run really used the REPL and, where scripted, sub-calls.
    for (const r of results.filter((x) => x.method === "rlm")) {
      expect(r, r.taskId).toMatchObject({ status: "answered", score: 1, model: "root-model" });
      expect(r.tokens).toBeGreaterThan(0);
      expect(r.iterations).toBeGreaterThanOrEqual(1);
    }
    expect(get("niah/28K/depth-50/0", "rlm").subcalls).toBe(1);
    expect(get("oolong/40K/count/0", "rlm").subcalls).toBeGreaterThanOrEqual(2);

    // Vanilla sees a 28K document through an 8K-token window: the middle needle is cut away.
    expect(get("niah/28K/depth-10/0", "vanilla").score).toBe(1);
    expect(get("niah/28K/depth-90/0", "vanilla").score).toBe(1);
    expect(get("niah/28K/depth-50/0", "vanilla")).toMatchObject({ score: 0, status: "answered" });
    for (const r of results.filter((x) => x.method === "vanilla")) {
      expect(r.shownChars!).toBeLessThan(r.contextChars);
      expect(r.tokens).toBeGreaterThan(1000);
    }
    // Counting over a partial document earns only OOLONG's partial credit.
    expect(get("oolong/40K/count/0", "vanilla").score).toBeLessThan(1);
    const vanillaPrompts = server.requests.filter((r) => r.messages[0]?.content === VANILLA_SYSTEM_PROMPT);
    expect(vanillaPrompts).toHaveLength(5);
    expect(vanillaPrompts[0]!.lastUser).toMatch(/Note: the document is 28,000 characters long and only [\d,]+ \(\d+\.\d%\) fit/);

    // Progress for a progress bar: planned, then start/finish per pair, then finished.
    expect(progress[0]).toEqual({ type: "planned", total: 10, alreadyDone: 0 });
    expect(progress.filter((p) => p.type === "task-finished").map((p) => (p as { done: number }).done)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
    ]);
    expect(progress.at(-1)).toEqual({ type: "finished", done: 10, total: 10, stopped: false });

    // Each RLM run was saved as a visualizer trajectory.
    const saved = parseJsonl(readFileSync(join(trajectories, trajectoryFileName("niah/28K/depth-50/0")), "utf8"));
    expect(saved.metadata?.root_model).toBe("root-model");
    expect(saved.iterations).toHaveLength(2);
    expect(saved.iterations[1]?.final_answer).toBe(get("niah/28K/depth-50/0", "rlm").answer);

    const rows = summarize(results);
    expect(rows.map((r) => `${r.suite}/${r.method}`)).toEqual([
      "niah/vanilla",
      "niah/rlm",
      "oolong/vanilla",
      "oolong/rlm",
      "code/vanilla",
      "code/rlm",
    ]);
    expect(rows[1]!.meanScore).toBe(1);
    expect(rows[0]!.meanScore).toBeCloseTo(2 / 3, 10);
    expect(formatSummaryTable(rows)).toContain("| niah ");

    const written = writeBenchReport(join(dir, "report"), results);
    expect(written.map((p) => p.slice(p.lastIndexOf("/") + 1))).toEqual([
      "summary.md",
      "accuracy.svg",
      "accuracy-niah.svg",
      "accuracy-oolong.svg",
      "accuracy-code.svg",
      "tokens-per-task.svg",
      "time-per-task.svg",
    ]);
    for (const p of written.slice(1)) expect(readFileSync(p, "utf8")).toMatch(/^<svg[\s\S]*<\/svg>$/);
    expect(readFileSync(written[0]!, "utf8")).toContain("| code ");
  });

  it("answers over an 8M-character document through the same REPL, where vanilla sees a sliver", async () => {
    const tasks = planTasks({ suites: ["niah"], sizes: [8_000_000], seed: 2, niah: { depths: [0.5] } });
    const outcome = await run(tasks, join(dir, "big.jsonl"));
    const rlm = outcome.results.find((r) => r.method === "rlm")!;
    const vanilla = outcome.results.find((r) => r.method === "vanilla")!;
    expect(rlm).toMatchObject({ score: 1, status: "answered", contextChars: 8_000_000 });
    expect(vanilla.score).toBe(0);
    expect(vanilla.shownChars! / vanilla.contextChars).toBeLessThan(0.01);
    // The root model never saw the document: its prompts stay small.
    const rootChars = server.requests
      .filter((r) => r.isRoot && r.messages[0]?.content !== VANILLA_SYSTEM_PROMPT)
      .map((r) => JSON.stringify(r.messages).length);
    expect(Math.max(...rootChars)).toBeLessThan(20_000);
  });

  it("resumes after an interruption without duplicates, even after a line cut short", async () => {
    const file = join(dir, "resume.jsonl");
    const controller = new AbortController();
    const first = await run(niahSpecs, file, {
      signal: controller.signal,
      onProgress: (p) => {
        if (p.type === "task-finished" && p.done === 3) controller.abort();
      },
    });
    expect(first).toMatchObject({ ran: 3, stopped: true });
    const afterFirst = parseResultsJsonl(readFileSync(file, "utf8"));
    expect(afterFirst).toHaveLength(3);
    const doneVanilla = afterFirst.filter((r) => r.method === "vanilla").length;

    // A run killed in the middle of writing leaves half a line behind.
    appendFileSync(file, '{"taskId":"niah/28K/depth-90/0","method":"rl');
    server.requests.length = 0;
    const second = await run(niahSpecs, file);
    expect(second).toMatchObject({ ran: 3, skipped: 3, stopped: false });
    // Finished pairs were not asked again.
    const vanillaCalls = server.requests.filter((r) => r.messages[0]?.content === VANILLA_SYSTEM_PROMPT).length;
    expect(vanillaCalls).toBe(niahSpecs.length - doneVanilla);

    const all = parseResultsJsonl(readFileSync(file, "utf8"));
    expect(all).toHaveLength(6);
    const keys = all.map((r) => `${r.taskId} ${r.method}`);
    expect(new Set(keys).size).toBe(6);
    expect(new Set(keys)).toEqual(new Set(niahSpecs.flatMap((s) => [`${s.id} vanilla`, `${s.id} rlm`])));
    expect(existsSync(file)).toBe(true);

    // A third run has nothing left to do and asks the model nothing.
    server.requests.length = 0;
    const third = await run(niahSpecs, file);
    expect(third).toMatchObject({ ran: 0, skipped: 6 });
    expect(server.requests).toHaveLength(0);
  });
});
