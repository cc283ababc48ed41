// What the command line's Python sandbox may read (src/node/python-sandbox.mjs): Pyodide's files,
// our REPL code, the cache directory and exactly the documents given, each granted once and
// none inside another (Node 20's permission model aborts on "/a" beside "/a/"), and the launch
// `rlm` guesses from its arguments before its own parser has loaded.
import { mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { mayRead, sameLaunch, sandboxLaunch } from "../../src/node/python-sandbox.mjs";
import { launchFromArgv } from "../../src/cli/prestart.mjs";
import { describeSandbox } from "../../src/cli/timing.ts";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "rlm-launch-")));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the sandbox's launch", () => {
  it("grants Pyodide, the REPL's code, the cache and the documents, each once and none twice", () => {
    writeFileSync(join(dir, "a.txt"), "a");
    const launch = sandboxLaunch({ documents: [join(dir, "a.txt")], cacheDir: join(dir, "cache") });
    expect(launch.outer).toBe(true);
    expect(launch.reads.some((r) => r.endsWith("/node_modules/pyodide"))).toBe(true);
    expect(launch.reads).toContain(join(dir, "a.txt"));
    expect(launch.reads).toContain(join(dir, "cache"));
    for (const r of launch.reads) {
      expect(r.endsWith("/")).toBe(false);
      expect(launch.reads.filter((q) => r.startsWith(`${q}/`))).toEqual([]);
    }
    expect(mayRead(launch, join(dir, "a.txt"))).toBe(true);
    expect(mayRead(launch, join(dir, "cache", "python-snapshot-x.bin"))).toBe(true);
    expect(mayRead(launch, join(dir, "b.txt"))).toBe(false);
    expect(mayRead(launch, "/etc/passwd")).toBe(false);
  });

  it("grants the rooms of workers/ the sandbox runs (node, shared, the Python package), not the page's workers", () => {
    const launch = sandboxLaunch({});
    const code = (path: string) => fileURLToPath(new URL(`../../workers/${path}`, import.meta.url));
    expect(mayRead(launch, code("node/repl-entry.node.ts"))).toBe(true);
    expect(mayRead(launch, code("shared/repl-runtime.ts"))).toBe(true);
    expect(mayRead(launch, code("python/rlm_runtime/runtime.py"))).toBe(true);
    expect(mayRead(launch, code("browser/model.worker.ts"))).toBe(false);
  });

  it("grants a linked document where it really is too, and makes a missing cache directory (only existing paths can be granted)", () => {
    writeFileSync(join(dir, "real.txt"), "r");
    symlinkSync(join(dir, "real.txt"), join(dir, "link.txt"));
    const launch = sandboxLaunch({ documents: [join(dir, "link.txt")], cacheDir: join(dir, "new", "cache") });
    expect(launch.reads).toEqual(expect.arrayContaining([join(dir, "link.txt"), join(dir, "real.txt"), join(dir, "new", "cache")]));
  });

  it("is guessed from rlm's arguments, in either form, and matches what the CLI asks for", () => {
    writeFileSync(join(dir, "b.txt"), "b");
    const env = { RLM_CACHE_DIR: join(dir, "cache") };
    const guessed = launchFromArgv(["--context-file", join(dir, "a.txt"), `--context-file=${join(dir, "b.txt")}`, "--task", "q"], env)!;
    const asked = sandboxLaunch({ documents: [join(dir, "a.txt"), join(dir, "b.txt")], cacheDir: join(dir, "cache") });
    expect(sameLaunch(guessed, asked)).toBe(true);
    expect(launchFromArgv(["--no-cache", "--task", "q"], env)!.reads).not.toContain(join(dir, "cache"));
    expect(launchFromArgv(["warmup"], env)).toBeNull();
  });

  it("reads the arguments with rlm's own flags (src/cli/flags.mjs), so a flag's value is never taken for a document", () => {
    const a = join(dir, "a.txt");
    // rlm reads "--context-file" here as --task's missing value and refuses the command; a guess
    // that knew only its three flags granted the sandbox a.txt for it.
    expect(launchFromArgv(["--task", "--context-file", a], {})!.reads).not.toContain(a);
    expect(launchFromArgv(["-qv", "--model-file", "m.gguf", "--context-file", a, "--task", "q"], {})!.reads).toContain(a);
  });

  it("--verbose names the walls that are up, and says so plainly when none is", () => {
    const info = { syncMode: "sab" as const, pythonVersion: "3.14", bootMs: 1 };
    expect(describeSandbox({ ...info, sandbox: { permission: true, noStringCode: true, envVars: 0, lockdown: true } })).toMatch(
      /^sandbox: a separate process with Node's permission model .*no environment, no code from strings, no network/,
    );
    expect(describeSandbox({ ...info, sandbox: { permission: false, noStringCode: false, envVars: 40, lockdown: false } })).toBe(
      "sandbox: a separate process with NO walls up",
    );
    expect(describeSandbox(info)).toMatch(/no sandbox/);
  });
});
