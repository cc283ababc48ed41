// `rlm --fallback ask|always|never`, `--max-fallback-calls`, `--max-fallback-tokens` through the
// real command (issue 28 §3): without a terminal nobody can be asked, so a reading above the
// limits is not made and --json and stderr say so and how to allow it; on a terminal the
// question is asked on stderr and answered on stdin.
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedRequest, type ScriptedServer } from "../fixtures/scripted-server.ts";
import { runRlm } from "./run-cli.ts";

const bin = new URL("../../bin/rlm.mjs", import.meta.url).pathname;
let server: ScriptedServer;

const run = (args: string[], input: string) => runRlm(args, { input });

const NEEDLE = "The vault code is 7-4-1-9.";
/** 14 parts for a 4K-window helper (8,000 characters each): 15 calls, over the default 12. */
const BIG = `${"Minutes of the harbour board: the cranes were sound.\n".repeat(2000).slice(0, 104_000)}${NEEDLE}\n`;
const base = () => ["--task", "What is the vault code?", "--model", "root-model", "--base-url", server.baseUrl, "--mode", "rlm", "--json"];
const subcalls = () => server.requests.filter((r) => !r.isRoot).length;

beforeAll(async () => {
  server = await startScriptedServer({ contextWindow: 4096 });
  server.scripts.root = "Let me think about where the code could be.";
  server.scripts.sub = (req: ScriptedRequest) =>
    req.lastUser.includes("Answers found") ? "7-4-1-9" : req.lastUser.includes(NEEDLE) ? "7-4-1-9" : "NOT FOUND";
});
afterAll(async () => server?.close());

describe("rlm --fallback", () => {
  it("by default, without a terminal, does not read above the limits: --json and stderr say what it would cost and how to allow it", async () => {
    server.requests.length = 0;
    const out = await run(base(), BIG);
    expect(out.code).toBe(1);
    expect(subcalls()).toBe(0);
    const json = JSON.parse(out.stdout) as Record<string, unknown>;
    expect(json).toMatchObject({
      answer: "",
      status: "too-many-errors",
      fallback: {
        reason: "The model could not drive the run: it wrote nothing that could run in 2 turns in a row.",
        chunksRead: 0,
        chunksTotal: 14,
        decision: "over-limits",
        estimate: { calls: 15, endpoint: expect.stringMatching(/^127\.0\.0\.1:\d+$/), local: true },
      },
    });
    expect(json.message).toMatch(
      /The harness did not read the document itself without asking: reading all 14 parts .* would take 15 calls/,
    );
    expect(out.stderr).toMatch(/rlm: The model could not drive the run: .*\(15 calls, over the limit of 12\)\.\n/);
    expect(out.stderr).toContain("pass --fallback always, or raise --max-fallback-calls / --max-fallback-tokens");
  });

  it("--fallback always reads without asking; --max-fallback-calls 20 reads within the limits", async () => {
    for (const [flags, decision] of [
      [["--fallback", "always"], "always"],
      [["--max-fallback-calls", "20"], "within-limits"],
    ] as const) {
      server.requests.length = 0;
      const out = await run([...base(), ...flags], BIG);
      expect(out.code).toBe(0);
      expect(subcalls()).toBe(15);
      expect(JSON.parse(out.stdout)).toMatchObject({ answer: "7-4-1-9", producedBy: "fallback", fallback: { decision, chunksRead: 14 } });
      expect(out.stderr).toMatch(
        /rlm: answered by the fallback \(The model could not drive the run: .*\); the harness read 14 of 14 parts itself/,
      );
    }
  });

  it("--fallback never spends nothing; a bad value is refused with the choices", async () => {
    server.requests.length = 0;
    const small = `A note.\n${NEEDLE}\n`;
    const out = await run([...base(), "--fallback", "never"], small);
    expect(out.code).toBe(1);
    expect(subcalls()).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ fallback: { decision: "never" } });
    expect(out.stderr).toContain("(--fallback never)");
    const bad = await run([...base(), "--fallback", "sometimes"], small);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--fallback must be one of ask, always, never");
    const badLimit = await run([...base(), "--max-fallback-tokens", "lots"], small);
    expect(badLimit.code).toBe(2);
    expect(badLimit.stderr).toContain("--max-fallback-tokens needs a whole number");
  });

  it("on a terminal asks on stderr and reads when the person answers y", async () => {
    server.requests.length = 0;
    const dir = mkdtempSync(join(tmpdir(), "rlm-fallback-"));
    const doc = join(dir, "minutes.txt");
    writeFileSync(doc, BIG);
    const args = [bin, "--context-file", doc, ...base()].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
    // script(1) gives the command a terminal (stdin and stderr are a TTY) and types "y".
    const out = await new Promise<{ code: number; output: string }>((resolve) => {
      const child = execFile("script", ["-qec", `${process.execPath} ${args}`, "/dev/null"], { timeout: 120_000 }, (err, stdout) =>
        resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, output: stdout }),
      );
      child.stdin?.write("y\n");
    });
    expect(out.output).toMatch(
      /rlm: The model could not drive the run: .* The harness can read all 14 parts of the document with the helper model instead: 15 calls/,
    );
    expect(out.output).toContain("Read it? [y/N]");
    expect(out.code).toBe(0);
    expect(subcalls()).toBe(15);
    expect(out.output).toMatch(/"decision": "agreed"/);
  });
});
