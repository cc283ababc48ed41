// A clean install prints no warning (issue 34 #11): npm 11 listed esbuild's postinstall as "not yet
// covered by allowScripts". esbuild needs none of it here: its platform binary comes as an optional
// dependency (@esbuild/linux-x64 and the rest), and the script only copies that binary over its
// JavaScript launcher or downloads it when optional dependencies were left out. Runs `npm ci
// --dry-run --offline` on a copy of package.json and the lockfile: nothing is installed or fetched.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url).pathname;

describe("npm ci", () => {
  it("finds every dependency's install script declared in allowScripts", () => {
    const dir = mkdtempSync(join(tmpdir(), "rlm-ci-"));
    try {
      for (const f of ["package.json", "package-lock.json"]) copyFileSync(join(ROOT, f), join(dir, f));
      const run = spawnSync("npm", ["ci", "--dry-run", "--offline", "--no-audit", "--no-fund"], {
        cwd: dir,
        encoding: "utf8",
        timeout: 240_000,
      });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stderr).not.toMatch(/not yet covered by allowScripts/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 260_000);
});
