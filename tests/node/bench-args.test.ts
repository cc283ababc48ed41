// The benchmark scripts read their flags with rlm's own reader (bench/lib/args.ts over
// src/cli/flags.mjs). Before, each had `arg = (name) => process.argv.find(...)`: a mistyped flag
// was ignored and a count that was no number became NaN, and the script ran on regardless.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url).pathname;
const script = (...args: string[]) =>
  spawnSync(process.execPath, ["--import", "tsx", ...args], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });

describe("a benchmark script's flags", () => {
  it("stop it at once on a mistyped flag or a count that is no number, saying which and what it takes", () => {
    const typo = script("bench/startup.ts", "--rusn=3");
    expect(typo.status, typo.stderr).toBe(2);
    expect(typo.stderr).toContain("startup.ts: unknown option --rusn (did you mean --runs?)");
    expect(typo.stderr).toContain("Usage: startup.ts --dist=VALUE --runs=N --write --help");
    const notANumber = script("bench/wllama.ts", "--runs=three");
    expect(notANumber.status, notANumber.stderr).toBe(2);
    expect(notANumber.stderr).toContain('--runs needs a whole number ≥ 0, got "three"');
  }, 240_000);

  it("are listed by --help", () => {
    const help = script("bench/cli-vs-python.ts", "--help");
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain("--canonical-python=VALUE --no-big --runs=N --write --help");
  }, 120_000);
});
