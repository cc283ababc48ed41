// `rlm` says what it is doing on a terminal (issue 34 #9): the README's first --model-file example
// ran 598 s with nothing on stderr. Under a pseudo-terminal (util-linux `script`), stderr carries a
// progress line (turn n of N, sub-calls, tokens written); with --quiet, or when stderr is a pipe,
// it carries none of it. The real CLI, real Pyodide, the scripted model server.
import { execFile } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repl as code, startScriptedServer, type ScriptedServer } from "../fixtures/scripted-server.ts";
import { TEST_CLI_CACHE_DIR } from "./helpers.ts";

const bin = new URL("../../bin/rlm.mjs", import.meta.url).pathname;
let server: ScriptedServer;
let dir: string;
let doc: string;

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs rlm; `terminal`: under a pseudo-terminal, whose output (stdout and stderr together) comes back. */
function run(args: string[], terminal: boolean): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, RLM_CACHE_DIR: TEST_CLI_CACHE_DIR, COLUMNS: "200" };
  const [file, argv] = terminal
    ? ["script", ["-qec", [process.execPath, bin, ...args].map(quote).join(" "), "/dev/null"]]
    : [process.execPath, [bin, ...args]];
  return new Promise((resolve) => {
    const child = execFile(file, argv as string[], { timeout: 120_000, env }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr });
    });
    child.stdin?.end();
  });
}

beforeAll(async () => {
  server = await startScriptedServer({ contextWindow: 4096 });
  dir = await mkdtemp(join(tmpdir(), "rlm-progress-"));
  doc = join(dir, "log.txt");
  await writeFile(doc, "alpha 1\nbeta 2\n");
});
afterAll(async () => server?.close());

function script(): void {
  server.scripts.root = [code("reply = llm_query('ping')\nprint(reply)"), code("FINAL('done: ' + reply)")];
  server.scripts.sub = "pong";
}

const args = () => [
  "--context-file",
  doc,
  "--task",
  "What is in the log?",
  "--base-url",
  server.baseUrl,
  "--model",
  "root-model",
  "--mode",
  "rlm",
  "--max-iterations",
  "6",
];

describe("rlm's progress line", () => {
  it("shows the turn, the sub-calls and the tokens written on a terminal", async () => {
    script();
    const out = await run(args(), true);
    expect(out.code, out.stdout).toBe(0);
    expect(out.stdout).toContain("done: pong");
    expect(out.stdout).toMatch(/rlm: turn 1\/6/);
    expect(out.stdout, JSON.stringify(out.stdout)).toMatch(/rlm: turn 2\/6 · .*1 sub-call/);
    expect(out.stdout).toMatch(/wrote [\d,]+ tokens/);
    // The line is erased before the answer: the answer starts a clean line.
    expect(out.stdout).toMatch(/\x1b\[Kdone: pong/);
  }, 150_000);

  it("is not shown with --quiet, nor when stderr is not a terminal", async () => {
    script();
    const quiet = await run([...args(), "--quiet"], true);
    expect(quiet.code, quiet.stdout).toBe(0);
    expect(quiet.stdout).toContain("done: pong");
    expect(quiet.stdout).not.toMatch(/rlm: turn/);
    script();
    const piped = await run(args(), false);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toBe("done: pong\n");
    expect(piped.stderr).toBe("");
  }, 150_000);
});
