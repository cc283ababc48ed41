// `npm run bench:prompt` must run to its end (issue 34 #11): it failed at HEAD with "expected 8
// sub-calls, saw 4", because its document repeats one block, its 8 chunk prompts were partly
// identical, and identical sub-call prompts are answered once. Runs the bench itself on two of
// its documents (10 MB is the smallest whose chunks repeat), with real Pyodide.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url).pathname;

describe("bench/prompt-growth.ts", () => {
  it("runs its script to the answer with 8 sub-calls (--quick: 10 KB and 10 MB)", () => {
    const run = spawnSync(process.execPath, ["--import", "tsx", "bench/prompt-growth.ts", "--quick"], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 300_000,
    });
    expect(run.stderr).not.toMatch(/expected 8 sub-calls/);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/10 MB/);
  }, 320_000);
});
