// `rlm --prompt`, `rlm --mode` and how the answer came about, through the real command (issue 13).
// Scripts read `--json`: every key it had keeps its name and meaning; only new keys are added.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VANILLA_SYSTEM_PROMPT } from "../../src/core/direct.ts";
import { repl as code, startScriptedServer, type ScriptedRequest, type ScriptedServer } from "../fixtures/scripted-server.ts";
import { runRlm } from "./run-cli.ts";

let server: ScriptedServer;

const run = (args: string[], input: string) => runRlm(args, { input });

const base = () => ["--model", "root-model", "--base-url", server.baseUrl, "--json"];
const isDirect = (req: ScriptedRequest) => req.messages[0]?.content === VANILLA_SYSTEM_PROMPT;
/** The keys `--json` printed before issue 13, in their order. */
const OLD_KEYS = ["answer", "status", "iterations", "usage"];
const USAGE_KEYS = [
  "models",
  "rootCalls",
  "subcalls",
  "generationMs",
  "replMs",
  "subcallMs",
  "totalMs",
  "promptTokens",
  "completionTokens",
];

beforeAll(async () => {
  server = await startScriptedServer({ contextWindow: 4096 });
});
afterAll(async () => server?.close());

describe("rlm --mode and --prompt", () => {
  it("auto (the default) answers a small document directly; --json adds mode and producedBy only", async () => {
    server.requests.length = 0;
    server.scripts.root = (req) => (isDirect(req) ? "blue" : code("FINAL('rlm')"));
    const out = await run(["--task", "Which colour?", ...base()], "The door is blue.");
    expect(out.code).toBe(0);
    const json = JSON.parse(out.stdout) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual([...OLD_KEYS, "mode", "producedBy", "sources"]);
    expect(Object.keys(json.usage as object)).toEqual(USAGE_KEYS);
    expect(json).toMatchObject({ answer: "blue", status: "answered", iterations: 1, producedBy: "model", mode: { used: "direct" } });
    expect(server.requests.filter((r) => r.isRoot)).toHaveLength(1);
  });

  it("--mode rlm --prompt canonical: the loop runs with the canonical prompt", async () => {
    server.requests.length = 0;
    server.scripts.root = [code("print(len(context))"), code('answer["content"] = context.split()[-1]\nanswer["ready"] = True')];
    const out = await run(["--task", "Last word?", ...base(), "--mode", "rlm", "--prompt", "canonical"], "The door is blue");
    expect(out.code).toBe(0);
    const json = JSON.parse(out.stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ answer: "blue", mode: { used: "rlm", reason: "RLM was asked for" }, producedBy: "model" });
    const first = server.requests.find((r) => r.isRoot)!;
    expect(first.messages[0]!.content).toContain("llm_query_batched");
    expect(first.firstUser).toMatch(/^Answer the following: Last word\?/);
  });

  it("a root that never writes code is answered by the fallback: --json and --verbose say so", async () => {
    server.requests.length = 0;
    server.scripts.root = "Searching for today's date now.";
    server.scripts.sub = (req) =>
      req.lastUser.includes("Answers found") ? "2026-11-23" : (/dated (\S+)\./.exec(req.lastUser)?.[1] ?? "NOT FOUND");
    const out = await run(["--task", "What is the date?", ...base(), "--mode", "rlm", "--verbose"], "This letter is dated 2026-11-23.");
    expect(out.code).toBe(0);
    const json = JSON.parse(out.stdout) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual([...OLD_KEYS, "mode", "producedBy", "fallback", "sources"]);
    expect(json).toMatchObject({
      answer: "2026-11-23",
      status: "answered",
      producedBy: "fallback",
      fallback: { chunksRead: 1, chunksTotal: 1, partial: false },
    });
    // The fallback's answer points at the piece it came from, like any other answer.
    expect((json.sources as Array<{ doc: string; line: number }>)[0]).toMatchObject({ doc: "stdin", line: 1 });
    expect(out.stderr).toContain("prompt profile: guided");
    expect(out.stderr).toMatch(/answered by the fallback \(The model could not drive the run/);
  });

  it.each(["guided", "standard", "canonical"])(
    "--prompt %s: a cell prints CASE_DONE, then FINAL(CASE_DONE) is the answer (issue 25)",
    async (prompt) => {
      server.requests.length = 0;
      server.scripts.root = [code('print("CASE_DONE")'), "FINAL(CASE_DONE)"];
      server.scripts.sub = "NOT FOUND";
      const out = await run(["--task", "Is the case done?", ...base(), "--mode", "rlm", "--prompt", prompt], "Case file 12: closed.");
      expect(out.code).toBe(0);
      expect(JSON.parse(out.stdout)).toMatchObject({ answer: "CASE_DONE", status: "answered", producedBy: "model" });
      expect(server.requests.filter((r) => !r.isRoot)).toHaveLength(0);
    },
  );

  it("an answer submitted again after the gate asked for evidence stands, and stderr says no output showed it", async () => {
    server.requests.length = 0;
    server.scripts.root = [code("print(len(context))"), "FINAL(4815162)", "FINAL(4815162)"];
    server.scripts.sub = "NOT FOUND";
    const long = "The committee met and discussed the roads. ".repeat(1000);
    const out = await run(["--task", "What is the number?", "--model", "root-model", "--base-url", server.baseUrl, "--mode", "rlm"], long);
    expect(out.code).toBe(0);
    expect(out.stdout).toBe("4815162\n");
    expect(out.stderr).toMatch(/No output of the run showed this answer/);
  });

  it("without --verbose, stderr still says when the fallback wrote the answer", async () => {
    server.requests.length = 0;
    server.scripts.root = "Let me think.";
    server.scripts.sub = (req) =>
      req.lastUser.includes("Answers found") ? "2026-11-23" : (/dated (\S+)\./.exec(req.lastUser)?.[1] ?? "NOT FOUND");
    const args = ["--task", "What is the date?", "--model", "root-model", "--base-url", server.baseUrl, "--mode", "rlm"];
    const out = await run(args, "This letter is dated 2026-11-23.");
    expect(out.code).toBe(0);
    expect(out.stdout).toBe("2026-11-23\n");
    expect(out.stderr).toMatch(/answered by the fallback \(The model could not drive the run/);
  });

  it("--mode direct --context-window 262144: a 600,000-character document reaches the model whole (issue 25)", async () => {
    server.requests.length = 0;
    server.scripts.root = (req) => (isDirect(req) ? `${req.lastUser.length}` : code("FINAL('rlm')"));
    const doc = Array.from({ length: 12_000 }, (_, i) => `line ${String(i).padStart(6, "0")}: the river é ran past the mill.`)
      .join("\n")
      .padEnd(600_000, ".");
    const out = await run(["--task", "What runs past the mill?", ...base(), "--mode", "direct", "--context-window", "262144"], doc);
    expect(out.code).toBe(0);
    const [request] = server.requests.filter(isDirect);
    expect(request!.lastUser).toBe(`Document:\n<<<\n${doc}\n>>>\n\nQuestion: What runs past the mill?`);
    expect(JSON.parse(out.stdout)).toMatchObject({ status: "answered", mode: { used: "direct" } });
  });

  it("rejects an unknown --mode with the choices", async () => {
    const out = await run(["--task", "q", "--model", "m", "--mode", "fast"], "doc");
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("--mode must be one of auto, rlm, direct");
  });
});
