// A Node REPL started from a process that runs TypeScript through tsx (`node --import tsx`, as
// `npm run bench` does): the worker thread inherits that flag and its source maps, which sent
// Pyodide looking for its files under its TypeScript sources ("Cannot find module
// …/src/js/pyodide.asm.mjs") and the REPL never started.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = new URL("../../", import.meta.url);
const dir = mkdtempSync(join(tmpdir(), "rlm-tsx-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a REPL started under node --import tsx", () => {
  it("boots and runs a cell", async () => {
    const script = [
      `const { createNodeRepl } = await import(${JSON.stringify(new URL("src/repl/node.ts", root).href)});`,
      "const repl = await createNodeRepl();",
      'const r = await repl.runCell("print(6 * 7)");',
      "console.log(r.stdout.trim());",
      "repl.close();",
    ].join("\n");
    const file = join(dir, "start-repl.mts");
    writeFileSync(file, script);
    const { stdout } = await run(process.execPath, ["--import", "tsx", file], { cwd: root, timeout: 60_000 });
    expect(stdout.trim()).toBe("42");
  }, 90_000);
});
