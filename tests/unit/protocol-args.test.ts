import { describe, expect, it } from "vitest";
import { UsageError, parseCliArgs } from "../../src/cli/args.ts";
import { ReplProtocolError, parseCellResult, parseSubcallRequest } from "../../src/repl/protocol.ts";

describe("REPL protocol guards", () => {
  const good = { stdout: "", stderr: "", final_answer: null, locals: {}, execution_time: 0.1, error: null, interrupted: false };
  it("accepts a well-formed cell result", () => {
    expect(parseCellResult(JSON.stringify(good))).toEqual(good);
  });
  it.each([
    ["not json", "{"],
    ["not a string", 42],
    ["wrong types", JSON.stringify({ ...good, stdout: 5 })],
    ["missing fields", JSON.stringify({ stdout: "" })],
    ["array", "[]"],
  ])("drops a %s cell result", (_why, value) => {
    expect(() => parseCellResult(value)).toThrow(ReplProtocolError);
  });
  it("validates sub-call requests", () => {
    expect(parseSubcallRequest('{"kind":"llm","prompts":["a"],"model":null}')).toEqual({ kind: "llm", prompts: ["a"], model: null });
    expect(() => parseSubcallRequest('{"kind":"fetch","prompts":["a"]}')).toThrow(ReplProtocolError);
    expect(() => parseSubcallRequest('{"kind":"llm","prompts":[1]}')).toThrow(ReplProtocolError);
  });
});

describe("CLI arguments", () => {
  it("parses the mlx_lm.rlm-style options", () => {
    const o = parseCliArgs(
      [
        "--context-file",
        "a",
        "--context-file",
        "b",
        "--task",
        "q",
        "--model",
        "m",
        "--sub-model",
        "s",
        "--max-iterations",
        "5",
        "--temperature",
        "0.3",
        "--seed",
        "1",
        "--json",
        "--no-stream",
      ],
      {},
    );
    expect(o).toMatchObject({
      contextFiles: ["a", "b"],
      task: "q",
      engine: { id: "openai", options: { model: "m", subModel: "s", stream: false } },
      maxIterations: 5,
      sampling: { temperature: 0.3, seed: 1 },
      json: true,
    });
  });
  it("takes defaults from the environment", () => {
    const o = parseCliArgs(["--task", "q"], { RLM_MODEL: "env-model", OPENAI_API_KEY: "k", RLM_BASE_URL: "http://x/v1" });
    expect(o.engine?.options).toMatchObject({ model: "env-model", apiKey: "k", baseUrl: "http://x/v1" });
  });
  it.each([
    [["--model", "m"], /--task is required/],
    [["--task", "q"], /--model is required/],
    [["--task", "q", "--model", "m", "--seed", "1.5"], /whole number/],
    [["--task", "q", "--model", "m", "--output-trajectory", "x.json"], /\.jsonl/],
    [["--task", "q", "--model", "m", "--bogus"], /bogus/],
  ])("rejects %j", (argv, message) => {
    expect(() => parseCliArgs(argv as string[], {})).toThrow(UsageError);
    expect(() => parseCliArgs(argv as string[], {})).toThrow(message);
  });
});
