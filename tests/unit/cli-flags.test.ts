// One argument reader for `rlm`, `rlm bench`, `rlm warmup` and the sandbox's launcher
// (src/cli/flags.mjs), and the engine chosen from the command-line registry by its flags. Before,
// bench read its numbers with Number() (a temperature of "warm" went to the server as NaN) and
// took any base URL, and an unknown flag got Node's message about positional arguments.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseCliArgs } from "../../src/cli/args.ts";
import { BENCH_HELP } from "../../src/cli/bench.ts";
import { BENCH_FLAGS, RLM_FLAGS, UsageError, WARMUP_FLAGS, readArgs } from "../../src/cli/flags.mjs";
import { HELP } from "../../src/cli/help.mjs";
import { main, type CliIO } from "../../src/cli/main.ts";
import { WARMUP_HELP } from "../../src/cli/warmup.ts";
import { COMMAND_LINE_ENGINES } from "../../src/engines/command-line-registry.ts";

const out = mkdtempSync(join(tmpdir(), "rlm-flags-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

async function rlm(argv: string[], env: Record<string, string | undefined> = {}) {
  let stdout = "";
  let stderr = "";
  const io: CliIO = {
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
    readStdin: async () => null,
    env,
    ask: null,
    progress: null,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

describe("a flag that is not one", () => {
  it("is named, with the flag it most likely meant and where the list is", async () => {
    const run = await rlm(["--task", "q", "--model", "m", "--temprature", "0.2"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("rlm: unknown option --temprature (did you mean --temperature?)\nRun rlm --help for the options.\n");
    const bench = await rlm(["bench", "--model", "m", "--suite", "niah"]);
    expect(bench).toMatchObject({ code: 2, stderr: expect.stringContaining("unknown option --suite (did you mean --suites?)") });
    const warmup = await rlm(["warmup", "--cache", "x"]);
    expect(warmup).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^rlm warmup: unknown option --cache \(did you mean --cache-dir\?\)\nRun rlm warmup --help/),
    });
  });

  it("or a flag without its value, or a value given to a switch", () => {
    expect(() => parseCliArgs(["--task"])).toThrow(/^--task needs a value/);
    expect(() => parseCliArgs(["--task", "q", "--model", "m", "--json=yes"])).toThrow(/^--json takes no value$/);
  });
});

describe("a bad value", () => {
  it("is refused by rlm bench as by rlm, before anything runs", async () => {
    const base = ["bench", "--model", "m", "--out", out];
    const cases: Array<[string[], RegExp]> = [
      [["--temperature", "warm"], /--temperature needs a number ≥ 0, got "warm"/],
      [["--context-window", "8k"], /--context-window needs a whole number ≥ 0, got "8k"/],
      [["--base-url", "localhost:8000"], /--base-url must be an http:\/\/ or https:\/\/ address/],
      [["--threads", "2"], /--threads is for a local model \(--model-file\)/],
    ];
    for (const [more, message] of cases) {
      const run = await rlm([...base, ...more]);
      expect(run.code, more.join(" ")).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toContain("Run rlm bench --help for the options.");
    }
    expect((await rlm(["bench", "--out", out], { RLM_BASE_URL: "localhost:1", RLM_MODEL: "m" })).stderr).toMatch(
      /RLM_BASE_URL must be an http:\/\/ or https:\/\/ address/,
    );
  });

  it("says where it came from when the environment gave it", () => {
    expect(() => parseCliArgs(["--task", "q", "--model", "m"], { RLM_BASE_URL: "ftp://x" })).toThrow(/^RLM_BASE_URL must be/);
    expect(() => parseCliArgs(["--task", "q", "--model", "m", "--max-time", "-1"])).toThrow(UsageError);
  });
});

describe("the engine", () => {
  it("is chosen by its flag from the command-line registry; the environment's model does not count as --model", () => {
    expect(parseCliArgs(["--task", "q", "--model", "m"]).engine?.id).toBe("openai");
    const local = parseCliArgs(["--task", "q", "--model-file", "x.gguf", "--threads", "2"], { RLM_MODEL: "env" });
    expect(local.engine).toMatchObject({ id: "llama-node", options: { modelFile: "x.gguf", threads: 2 } });
    expect(() => parseCliArgs(["--task", "q", "--model-file", "x.gguf", "--model", "m"])).toThrow(/leave out --model/);
    expect(() => parseCliArgs(["--task", "q", "--model", "m", "--sub-model-file", "s.gguf"])).toThrow(
      /--sub-model-file goes with --model-file/,
    );
  });

  it("has one default, and every engine's flags are flags of rlm and rlm bench", () => {
    expect(COMMAND_LINE_ENGINES.filter((e) => e.chosenBy === undefined)).toHaveLength(1);
    for (const engine of COMMAND_LINE_ENGINES) {
      for (const flag of [...engine.flags, engine.chosenBy ?? "model"]) {
        expect(RLM_FLAGS, flag).toHaveProperty(flag);
        if (flag !== "sub-context-window") expect(BENCH_FLAGS, flag).toHaveProperty(flag);
      }
    }
  });
});

describe("the flag tables", () => {
  it("are what flags.d.mts declares", () => {
    const types = readFileSync(new URL("../../src/cli/flags.d.mts", import.meta.url), "utf8");
    const declared = (name: string) => {
      const body = new RegExp(`type ${name} = [^{]*\\{([^]*?)\\n\\};`).exec(types)![1]!;
      return [...body.matchAll(/^ {2}"?([a-z-]+)"?:/gm)].map((m) => m[1]);
    };
    const model = declared("ModelFlags");
    expect(Object.keys(RLM_FLAGS).sort()).toEqual([...model, ...declared("RlmFlags")].sort());
    expect(Object.keys(BENCH_FLAGS).sort()).toEqual([...model, ...declared("BenchFlags")].sort());
    expect(Object.keys(WARMUP_FLAGS).sort()).toEqual(["cache-dir", "help", "rebuild", "verbose"]);
  });

  it("are each documented in their --help, which names no other", () => {
    const named = (help: string) => new Set([...help.matchAll(/--([a-z][a-z-]*)/g)].map((m) => m[1]!));
    const rlmHelp = named(HELP);
    expect(Object.keys(RLM_FLAGS).filter((f) => !rlmHelp.has(f))).toEqual([]);
    expect([...rlmHelp].filter((f) => !(f in RLM_FLAGS) && !(f in WARMUP_FLAGS))).toEqual([]);
    const benchHelp = named(BENCH_HELP);
    expect(Object.keys(BENCH_FLAGS).filter((f) => !benchHelp.has(f))).toEqual([]);
    expect([...benchHelp].filter((f) => !(f in BENCH_FLAGS))).toEqual([]);
    expect(Object.keys(WARMUP_FLAGS).filter((f) => !named(WARMUP_HELP).has(f))).toEqual([]);
  });

  it("take a string flag from its environment variables in order, and say which", () => {
    const read = readArgs(RLM_FLAGS, [], { RLM_API_KEY: "", OPENAI_API_KEY: "k", RLM_MODEL: "m" });
    expect(read.values["api-key"]).toBe("k");
    expect(read.from).toMatchObject({ "api-key": "OPENAI_API_KEY", model: "RLM_MODEL" });
    expect(read.given.size).toBe(0);
  });
});
