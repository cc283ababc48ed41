// The `rlm` command end to end: a real process, a real REPL, the scripted model server.
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJsonl } from "../../src/core/trajectory.ts";
import { repl as code, startScriptedServer, type ScriptedServer } from "../fixtures/scripted-server.ts";
import { runRlm } from "./run-cli.ts";
import { TEST_CLI_CACHE_DIR } from "./helpers.ts";

let server: ScriptedServer;
let dir: string;

// The start-up snapshot goes to the suite's CLI cache (TEST_CLI_CACHE_DIR), not the user's cache.
const run = (args: string[], input?: string) =>
  runRlm(args, { input, timeout: 90_000, env: { ...process.env, RLM_CACHE_DIR: TEST_CLI_CACHE_DIR } });

beforeAll(async () => {
  server = await startScriptedServer({ contextWindow: 4096 });
  dir = await mkdtemp(join(tmpdir(), "rlm-cli-"));
});
afterAll(async () => server?.close());

describe("rlm CLI", () => {
  it("answers from several files, writes a trajectory and prints JSON", async () => {
    await writeFile(join(dir, "a.txt"), "alpha says 1\n");
    await writeFile(join(dir, "b.txt"), "beta says 2\n");
    server.scripts.root = [
      code("print(sorted(context))"),
      (req) => {
        expect(req.firstUser).toContain("dict of 2 documents");
        return code("total = sum(int(t.split()[-1]) for t in context.values())\nFINAL(f'total {total}, sub: ' + llm_query('ping'))");
      },
    ];
    server.scripts.sub = "pong";
    const trajectory = join(dir, "run.jsonl");
    const out = await run([
      "--context-file",
      join(dir, "a.txt"),
      "--context-file",
      join(dir, "b.txt"),
      "--task",
      "Sum the numbers",
      "--base-url",
      server.baseUrl,
      "--model",
      "root-model",
      "--sub-model",
      "sub-model",
      "--output-trajectory",
      trajectory,
      "--json",
      "--mode",
      "rlm", // the loop is under test: auto mode would answer these two lines directly
    ]);
    expect(out.code).toBe(0);
    const json = JSON.parse(out.stdout) as { answer: string; status: string; usage: { subcalls: number }; sources: unknown[] };
    expect(json.answer).toBe("total 3, sub: pong");
    // The first turn printed the keys, not document text; the answer is not quoted anywhere.
    expect(json.sources).toEqual([]);
    expect(json.status).toBe("answered");
    expect(json.usage.subcalls).toBe(1);
    expect(server.requests.some((r) => r.model === "sub-model" && !r.isRoot)).toBe(true);
    const { metadata, iterations } = parseJsonl(await readFile(trajectory, "utf8"));
    expect(metadata?.root_model).toBe("root-model");
    expect(metadata?.other_backends).toEqual(["sub-model"]);
    expect(iterations).toHaveLength(2);
  });

  it("reads the document from stdin and prints just the answer", async () => {
    server.scripts.root = [code("FINAL(context.strip().upper())")];
    const out = await run(
      ["--task", "shout", "--model", "root-model", "--base-url", server.baseUrl, "--max-iterations", "3", "--mode", "rlm"],
      "quiet words\n",
    );
    expect(out.code).toBe(0);
    expect(out.stdout).toBe("QUIET WORDS\n");
  });

  it("shows live steps with --verbose, then the answer's sources with the passage", async () => {
    server.scripts.root = [
      code("import re\nm = re.search('secret word is', context)\nprint(context[m.start() - 40:m.end() + 20])"),
      code("FINAL('OSPREY')"),
    ];
    const doc = `${"Filler line, nothing to see here at all.\n".repeat(300)}The secret word is OSPREY, said the guard.\n${"More filler, still nothing.\n".repeat(50)}`;
    const out = await run(["--task", "q", "--model", "root-model", "--base-url", server.baseUrl, "--verbose", "--mode", "rlm"], doc);
    expect(out.code).toBe(0);
    expect(out.stderr).toContain("turn 1");
    expect(out.stderr).toContain("The secret word is OSPREY");
    expect(out.stderr).toMatch(/sources \(best first\):\n {2}1\. stdin · line 301 \[characters [\d,]+–[\d,]+\] — the answer appears here/);
    expect(out.stderr).toContain("│ The secret word is [OSPREY], said the guard.");
  });

  it("includes the sources in --json", async () => {
    server.scripts.root = [code("import re\nm = re.search('OSPREY', context)\nFINAL(context[m.start():m.end()])")];
    const out = await run(
      ["--task", "q", "--model", "root-model", "--base-url", server.baseUrl, "--json", "--mode", "rlm"],
      "a\nb\nthe word is OSPREY\n",
    );
    const json = JSON.parse(out.stdout) as { sources: Array<{ doc: string; line: number; start: number; passage: { text: string } }> };
    expect(json.sources[0]).toMatchObject({ doc: "stdin", line: 3, start: 16, passage: { text: "OSPREY" } });
  });

  it("honours --max-tokens in direct mode, small values included, and says when it cannot (issue 32 §5)", async () => {
    server.scripts.root = "It says hello.";
    const before = server.requests.length;
    const small = await run(
      ["--task", "q", "--model", "root-model", "--base-url", server.baseUrl, "--mode", "direct", "--max-tokens", "40"],
      "hello",
    );
    expect(small.code, small.stderr).toBe(0);
    expect(server.requests.slice(before).map((r) => r.maxTokens)).toEqual([40]);
    expect(small.stderr).not.toContain("--max-tokens");
    // More than half the 4,096-token window: the prompt needs the rest, and rlm says what it used.
    const big = await run(
      ["--task", "q", "--model", "root-model", "--base-url", server.baseUrl, "--mode", "direct", "--max-tokens", "3000"],
      "hello",
    );
    expect(big.code, big.stderr).toBe(0);
    expect(server.requests.at(-1)?.maxTokens).toBe(2048);
    expect(big.stderr).toContain(
      "--max-tokens 3000 is more than half the root's 4,096-token window (the prompt needs the rest); using 2048.",
    );
  });

  it("fails clearly when the server cannot be reached", async () => {
    const out = await run(["--task", "q", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"], "doc");
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("Could not reach the model server");
    // There is no page and no CORS on the command line (issue 32 §5).
    expect(out.stderr).not.toMatch(/this page|CORS/);
    expect(out.stdout).toBe("");
  });

  it("a time limit reached during the first request is out of time, not Python failing to load", async () => {
    // The first root request goes out while Python starts (the CLI knows the document's size);
    // the model takes longer than --max-time to answer it.
    await writeFile(join(dir, "big.txt"), "word ".repeat(40_000));
    server.scripts.root = { text: code("print(len(context))"), delayMs: 10_000 };
    const out = await run(
      ["--context-file", join(dir, "big.txt"), "--task", "q", "--base-url", server.baseUrl, "--model", "root-model"].concat([
        "--mode",
        "rlm",
        "--max-time",
        "3",
        "--json",
      ]),
    );
    expect(out.code).toBe(1);
    const json = JSON.parse(out.stdout) as { status: string; message?: string };
    expect(json.message ?? "").not.toMatch(/before Python had loaded/);
    expect(json.status).toBe("out-of-time");
  });

  it("rejects bad options with exit code 2", async () => {
    const missing = await run(["--model", "m"], "doc");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--task is required");
    const bad = await run(["--task", "q", "--model", "m", "--max-iterations", "lots"], "doc");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--max-iterations needs a whole number");
    // A malformed --base-url is a bad option too (it exited 1 as "unreachable": issue 32 §5).
    for (const url of ["not a url", "localhost:8000/v1", "ftp://host/v1"]) {
      const badUrl = await run(["--task", "q", "--model", "m", "--base-url", url], "doc");
      expect(badUrl.code, url).toBe(2);
      expect(badUrl.stderr).toContain("--base-url must be an http:// or https:// address");
    }
    const file = await run(["--task", "q", "--model", "m", "--context-file", join(dir, "nope.txt")]);
    expect(file.code).toBe(2);
    expect(file.stderr).toContain("ENOENT");
  });

  it("prints help", async () => {
    const out = await run(["--help"]);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("--output-trajectory");
  });
});

describe("rlm bench", () => {
  it("runs a suite with both methods, writes results, charts and trajectories, and resumes", async () => {
    const out = join(dir, "bench");
    server.scripts.root = (req) => {
      const key = /special magic number for ([\w-]+) mentioned/.exec(req.messages[1]?.content ?? "")?.[1];
      if (req.messages[0]?.content.includes("Read the document, then answer")) {
        // Vanilla: answers from what it was shown.
        return new RegExp(`magic numbers for ${key} is: (\\d+)`).exec(req.messages[1]!.content)?.[1] ?? "not shown";
      }
      const rootKey = /special magic number for ([\w-]+) mentioned/.exec(req.firstUser)?.[1];
      return req.turn === 0
        ? code(`import re\nm = re.search(r"magic numbers for ${rootKey} is: (\\d+)", context)\nfound = m.group(1)\nprint(found)`)
        : code("FINAL(found)");
    };
    const args = [
      "bench",
      "--model",
      "root-model",
      "--base-url",
      server.baseUrl,
      "--suites",
      "niah",
      "--sizes",
      "28K",
      "--out",
      out,
      "--verbose",
    ];
    const first = await run(args);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("niah");
    const lines = (await readFile(join(out, "results.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { method: string; score: number });
    expect(lines).toHaveLength(6); // 3 needle depths × 2 methods
    expect(lines.filter((l) => l.method === "rlm").every((l) => l.score === 1)).toBe(true);
    expect((await readFile(join(out, "summary.md"), "utf8")).length).toBeGreaterThan(50);
    const { readdir } = await import("node:fs/promises");
    expect((await readdir(out)).some((f) => f.endsWith(".svg"))).toBe(true);
    expect((await readdir(join(out, "trajectories"))).length).toBe(3);
    const requestsBefore = server.requests.length;
    const again = await run(args);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain("6 already in");
    expect(server.requests.length - requestsBefore).toBe(0); // every task × method was already done
  });

  it("rejects an unknown suite", async () => {
    const out = await run(["bench", "--model", "m", "--suites", "nope"]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('"nope" is not one of');
  });
});
