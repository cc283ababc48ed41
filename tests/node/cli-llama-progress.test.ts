// `rlm --model-file` on a terminal says what llama.cpp is doing before the first token (issue 34
// #9, #2): the README's first example ran 598 s with nothing on stderr, most of it loading the
// model and reading a long prompt on the processor. Under a pseudo-terminal (util-linux `script`)
// the progress line shows the model loading by megabytes, "reading n of N prompt tokens" batch by
// batch, and the time to the first token; with --quiet none of it. Real llama.cpp on the tiny
// random-weight Qwen (tests/fixtures/gguf), real Pyodide, the real command.
import { execFile } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { tinyQwenGguf } from "../fixtures/gguf/index.ts";
import { TEST_CLI_CACHE_DIR } from "./helpers.ts";

const bin = new URL("../../bin/rlm.mjs", import.meta.url).pathname;
let dir: string;
let tiny: string;
let longDoc: string;

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs rlm under a pseudo-terminal; its output (stdout and stderr together) comes back. */
function onTerminal(args: string[]): Promise<{ code: number; out: string }> {
  const env = { ...process.env, RLM_CACHE_DIR: TEST_CLI_CACHE_DIR, COLUMNS: "200" };
  const command = [process.execPath, bin, ...args, "--threads", "1"].map(quote).join(" ");
  return new Promise((resolve) => {
    const child = execFile("script", ["-qec", command, "/dev/null"], { timeout: 240_000, env }, (err, stdout) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, out: stdout });
    });
    child.stdin?.end();
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rlm-llama-progress-"));
  tiny = await tinyQwenGguf();
  // ~6,000 tokens: a direct prompt that takes a dozen batches of 512 to read.
  longDoc = join(dir, "long.txt");
  await writeFile(
    longDoc,
    Array.from({ length: 400 }, (_, i) => `Line ${i}: alpha beta gamma delta epsilon zeta eta theta iota kappa`).join("\n"),
  );
});

const args = () => [
  "--model-file",
  tiny,
  "--context-window",
  "8192",
  "--mode",
  "direct",
  "--max-tokens",
  "8",
  "--context-file",
  longDoc,
  "--task",
  "Which number is on line two?",
];

describe("rlm --model-file's progress line", { timeout: 300_000 }, () => {
  it("shows the model loading by size, the prompt read batch by batch and the time to the first token", async () => {
    const run = await onTerminal(args());
    expect(run.code, run.out).toBe(0);
    expect(run.out).toMatch(/rlm: loading the model · [\d,]+ MB of [\d,]+ MB/);
    const reads = [...run.out.matchAll(/reading ([\d,]+) of ([\d,]+) prompt tokens/g)].map((m) => [
      Number(m[1]!.replace(/,/g, "")),
      Number(m[2]!.replace(/,/g, "")),
    ]);
    // Several batches of one prompt of thousands of tokens, counted up.
    expect(reads.length, run.out).toBeGreaterThan(3);
    const total = reads[0]![1]!;
    expect(total).toBeGreaterThan(4000);
    expect(reads.every(([, t]) => t === total)).toBe(true);
    expect(reads.map(([n]) => n)).toEqual([...reads.map(([n]) => n!)].sort((a, b) => a - b));
    expect(reads.at(-1)![0]).toBeGreaterThan(total - 600);
    expect(run.out).toMatch(/one direct call · wrote [\d,]+ tokens.* · first after [\d.]+ s/);
  });

  it("stays quiet with --quiet", async () => {
    const run = await onTerminal([...args(), "--quiet"]);
    expect(run.code, run.out).toBe(0);
    expect(run.out).not.toMatch(/loading the model|prompt tokens|first after/);
  });
});
