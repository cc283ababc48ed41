// The CLI keeps its caches out of node_modules (issue 34 #10). It built its plain-JavaScript bundles
// into node_modules/.cache, and a new entry there leaves node_modules newer than npm's record of it
// (node_modules/.package-lock.json): every `npx rlm` then read all 735 packages again before
// starting, 8–25 s against 0.5 s for `node bin/rlm.mjs`. Runs the real CLI from a copy of the
// checkout whose node_modules holds links to this one's packages, and checks nothing new appears there.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url).pathname;
const copy = mkdtempSync(join(tmpdir(), "rlm-checkout-"));

afterAll(() => rmSync(copy, { recursive: true, force: true }));

describe("rlm's caches", () => {
  it("are written outside node_modules", () => {
    for (const dir of ["bin", "src", "workers"]) cpSync(join(ROOT, dir), join(copy, dir), { recursive: true });
    cpSync(join(ROOT, "package.json"), join(copy, "package.json"));
    const modules = join(copy, "node_modules");
    mkdirSync(modules);
    for (const name of readdirSync(join(ROOT, "node_modules"))) {
      if (!name.startsWith(".")) symlinkSync(join(ROOT, "node_modules", name), join(modules, name));
    }
    const before = readdirSync(modules).sort();

    // An unknown option: the CLI loads (from its bundle, built now) and says what is wrong.
    const run = spawnSync(process.execPath, [join(copy, "bin/rlm.mjs"), "--no-such-option"], {
      cwd: copy,
      encoding: "utf8",
      timeout: 120_000,
      env: { ...process.env, RLM_CACHE_DIR: join(copy, "python-cache") },
    });
    expect(run.stderr).toMatch(/no-such-option/);
    expect(readdirSync(modules).sort()).toEqual(before);
    expect(existsSync(join(modules, ".cache"))).toBe(false);
    expect(readdirSync(join(copy, ".cache/bundles")).some((f) => f.startsWith("cli-") && f.endsWith(".mjs"))).toBe(true);
  }, 150_000);
});
