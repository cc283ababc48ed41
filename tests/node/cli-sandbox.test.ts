// The command line's Python sandbox, attacked from inside (issue 24). A document can make the
// model hostile, so every turn of a scripted root model is one attempt: the page's attack
// catalogue (tests/e2e/sandbox/attacks.ts: the network, Pyodide's loaders, string compilation)
// and host probes of the command line's own (tests/node/sandbox/host-probes.ts: environment,
// host files, processes, bindings, addons, NODEFS, dynamic imports). Canaries: an HTTP server
// that must hear nothing, an environment variable, a host file, a path that must not appear, a
// marker a shell command would make, and a bystander process that must not be signalled.
//
// First the real `rlm` binary with both walls, as a person runs it: nothing gets out, and
// nothing of the host reaches the model. Then each wall alone, and neither (the positive
// control that proves the probes do reach the host when nothing stops them), through the same
// sandbox process with a wall left down, which only tests can ask for.
//
// Run: npx vitest run --project node tests/node/cli-sandbox.test.ts (SANDBOX_REPORT=1 prints every verdict).
import { spawn, execFile, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodeRepl } from "../../src/repl/node.ts";
import type { SandboxWallSetting } from "../../src/repl/node-sandbox.ts";
import { startCanaryServer, type CanaryServer } from "../fixtures/canary-server.ts";
import { repl as code, startScriptedServer, type ScriptedServer } from "../fixtures/scripted-server.ts";
import { ATTACKS, attackCell, prelude, type Attack } from "../e2e/sandbox/attacks.ts";
import { NETWORK_PROBES, SIGNAL_PROBES, hostProbes, type HostCanaries } from "./sandbox/host-probes.ts";
import { STACK_TRACE_PROBES } from "./sandbox/stack-trace-probes.ts";
import { TEST_CLI_CACHE_DIR } from "./helpers.ts";

const bin = new URL("../../bin/rlm.mjs", import.meta.url).pathname;
/** The page's attacks that reach the network from Node when nothing stops them (the rest are browser APIs). */
const PAGE_ATTACKS_IN_NODE = new Set(["js.fetch"]);
const report = !!process.env.SANDBOX_REPORT;

let canary: CanaryServer;
let model: ScriptedServer;
let dir: string;
let bystander: ChildProcess;
let canaries: HostCanaries;
let envSecret: string;
let fileSecret: string;
let docSecret: string;
let probes: Attack[];

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

beforeAll(async () => {
  canary = await startCanaryServer();
  model = await startScriptedServer({ contextWindow: 131072 });
  dir = await mkdtemp(join(tmpdir(), "rlm-sandbox-"));
  envSecret = `ENV-SECRET-${randomBytes(6).toString("hex")}`;
  fileSecret = `FILE-SECRET-${randomBytes(6).toString("hex")}`;
  docSecret = `SECRET-${randomBytes(8).toString("hex")}`;
  await writeFile(join(dir, "host-secret.txt"), `${fileSecret}\n`);
  bystander = spawn("sleep", ["600"], { stdio: "ignore" });
  canaries = {
    envName: "RLM_SANDBOX_TEST_CANARY",
    secretFile: join(dir, "host-secret.txt"),
    writeTarget: join(dir, "planted-by-python.txt"),
    spawnMarker: join(dir, "spawned-by-python"),
    bystanderPid: bystander.pid!,
  };
  process.env[canaries.envName] = envSecret;
  probes = hostProbes(canaries);
});

afterAll(async () => {
  delete process.env[canaries?.envName ?? ""];
  bystander?.kill("SIGKILL");
  await canary?.close();
  await model?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The attack's own verdict line from a REPL output, or what it printed instead. */
function verdictOf(name: string, output: string): string {
  const lines = output.split("\n");
  return (
    lines.find((l) => l.startsWith(`LEAK-ATTEMPT-OK ${name}`) || l.startsWith(`BLOCKED ${name}:`) || l.startsWith(`SENT ${name}:`)) ??
    `NO VERDICT ${name}: ${output.slice(-300)}`
  );
}

const leaked = (line: string) => line.startsWith("LEAK-ATTEMPT-OK");

/** Nothing the canaries hold appears in `text`. */
function expectNoHostSecret(text: string, where: string): void {
  for (const secret of [envSecret, fileSecret]) expect(text.includes(secret), `${where} holds ${secret}`).toBe(false);
}

function expectHostUntouched(): void {
  expect(existsSync(canaries.writeTarget), "a host file was written").toBe(false);
  expect(existsSync(canaries.spawnMarker), "a shell command ran").toBe(false);
  expect(alive(canaries.bystanderPid), "the bystander process was signalled").toBe(true);
}

describe("the command line's Python sandbox", () => {
  it("rlm: no attack or host probe gets through, and nothing of the host reaches the model", async () => {
    const all = [...ATTACKS, ...probes];
    await writeFile(join(dir, "memo.txt"), `Quarterly memo. The code word is ${docSecret}.\n${"Filler line.\n".repeat(50)}`);
    model.scripts.root = [
      code(prelude(canary.url, canary.wsUrl), "First some helpers."),
      ...all.map((a) => code(attackCell(a), `Attack: ${a.name}.`)),
      code('FINAL("done")', "Finished."),
    ];
    model.scripts.sub = "ok";
    const apiKey = `sk-canary-${randomBytes(6).toString("hex")}`;
    const before = model.requests.length;
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const env = { ...process.env, RLM_CACHE_DIR: TEST_CLI_CACHE_DIR };
      const args = [bin, "--context-file", join(dir, "memo.txt"), "--task", "What is in the memo?", "--base-url", model.baseUrl];
      args.push("--model", "root-model", "--api-key", apiKey, "--mode", "rlm", "--max-iterations", String(all.length + 5));
      args.push("--cell-timeout", "20", "--json", "--verbose");
      execFile(process.execPath, args, { timeout: 600_000, env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
      );
    });
    const requests = model.requests.slice(before);
    // The REPL output each attack's turn showed the model: the next root request's last message.
    const outputs = requests.filter((r) => r.isRoot).map((r) => r.lastUser);
    const verdicts = all.map((a, i) => verdictOf(a.name, outputs[i + 2] ?? ""));
    if (report) console.log(verdicts.join("\n"));
    expect(run.stderr).toMatch(/sandbox: a separate process with Node's permission model .*no environment.*no code from strings.*lockdown/);
    expect(JSON.parse(run.stdout).answer, run.stderr.slice(-2000)).toBe("done");
    expect(outputs[1], "the prelude ran and found the document's secret").toContain("PRELUDE-OK secret-found");
    expect(verdicts.filter(leaked)).toEqual([]);
    expect(verdicts.filter((v) => v.startsWith("NO VERDICT"))).toEqual([]);
    expect(canary.hits(), canary.describe()).toBe(0);
    for (const r of requests) expectNoHostSecret(JSON.stringify(r.body), "a request to the model");
    expect(
      requests.some((r) => JSON.stringify(r.body).includes(apiKey)),
      "the API key reached a prompt",
    ).toBe(false);
    expectHostUntouched();
  }, 900_000);

  it("Stop (Ctrl-C) and --max-time still end a runaway cell in the sandbox", async () => {
    await writeFile(join(dir, "small.txt"), `${"Some text.\n".repeat(2000)}`);
    model.scripts.root = code("i = 0\nwhile True:\n    i += 1", "Count for ever.");
    const base = [bin, "--context-file", join(dir, "small.txt"), "--task", "Count", "--base-url", model.baseUrl, "--model", "root-model"];
    base.push("--mode", "rlm", "--json", "--verbose");
    const env = { ...process.env, RLM_CACHE_DIR: TEST_CLI_CACHE_DIR };

    // --max-time: the limit interrupts the cell, and the run ends by itself.
    const limited = await new Promise<{ code: number; stdout: string; ms: number }>((resolve) => {
      const t0 = performance.now();
      execFile(process.execPath, [...base, "--max-time", "6"], { env, timeout: 120_000 }, (err, stdout) =>
        resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, ms: performance.now() - t0 }),
      );
    });
    expect(limited.code).toBe(1);
    expect(JSON.parse(limited.stdout).status).not.toBe("answered");
    expect(limited.ms).toBeLessThan(60_000);

    // Ctrl-C while the cell runs: the sandbox ignores the terminal's signal, rlm stops Python.
    const child = spawn(process.execPath, base, { env, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    let stdout = "";
    child.stderr.on("data", (d) => (stderr += String(d)));
    child.stdout.on("data", (d) => (stdout += String(d)));
    const exited = new Promise<number>((resolve) => child.on("exit", (c) => resolve(c ?? 1)));
    // The cell is running once the model's first reply has been shown and Python has started.
    await waitFor(() => /Count for ever/.test(stderr) && /Python started/.test(stderr), 90_000);
    const stoppedAt = performance.now();
    child.kill("SIGINT");
    expect(await exited).toBe(1);
    expect(performance.now() - stoppedAt).toBeLessThan(15_000);
    expect(JSON.parse(stdout).status).toBe("stopped");
  }, 300_000);

  describe.each([
    { label: "no walls (the positive control)", walls: { outer: false, inner: false } },
    { label: "the sandbox process alone", walls: { outer: true, inner: false } },
    { label: "the worker's lockdown alone", walls: { outer: false, inner: true } },
  ])("$label", ({ walls }: { walls: SandboxWallSetting }) => {
    it("holds what that wall promises", async () => {
      canary.reset();
      const verdicts = await probeWith(walls, [...ATTACKS.filter((a) => PAGE_ATTACKS_IN_NODE.has(a.name)), ...probes]);
      if (report) console.log(JSON.stringify(walls), "\n" + verdicts.map(([, v]) => v).join("\n"));
      const leakedNames = verdicts.filter(([, v]) => leaked(v)).map(([a]) => a.name);
      if (!walls.outer && !walls.inner) {
        // Nothing stops them: every probe reaches the host, so a blocked verdict elsewhere means a wall.
        expect(verdicts.filter(([, v]) => !leaked(v)).map(([, v]) => v)).toEqual([]);
        expect(canary.hits()).toBeGreaterThan(0);
      } else if (walls.outer && !walls.inner) {
        // Node before 25 has no network permission, and no rule for signals: only the lockdown
        // closes those. Everything of the host itself is closed by the process's walls.
        const notWalled = (name: string) => NETWORK_PROBES.has(name) || SIGNAL_PROBES.has(name) || PAGE_ATTACKS_IN_NODE.has(name);
        expect(leakedNames.filter((n) => !notWalled(n))).toEqual([]);
        expect(existsSync(canaries.writeTarget)).toBe(false);
        expect(existsSync(canaries.spawnMarker)).toBe(false);
      } else {
        expect(leakedNames).toEqual([]);
        expect(canary.hits(), canary.describe()).toBe(0);
        expectHostUntouched();
      }
      for (const [, v] of verdicts) if (walls.outer) expectNoHostSecret(v, "a verdict");
    }, 300_000);
  });
});

describe("the command line's Python sandbox and V8's stack-trace hooks", () => {
  // `js.Error` is the real Error (issue 32 §3): with both walls, as `rlm` runs, no hook Python
  // plants sees a call site's receiver or function, and the host's own hooks stay the host's.
  it("no Python hook gets a call site's receiver or function, nor replaces Error.captureStackTrace", async () => {
    const verdicts = await probeWith({ outer: true, inner: true }, STACK_TRACE_PROBES);
    if (report) console.log(verdicts.map(([, v]) => v).join("\n"));
    expect(verdicts.filter(([, v]) => !v.startsWith("BLOCKED")).map(([, v]) => v)).toEqual([]);
  }, 300_000);
});

async function waitFor(check: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Runs the prelude and each probe in a sandbox with these walls; the verdict line of each. */
async function probeWith(walls: SandboxWallSetting, list: Attack[]): Promise<Array<[Attack, string]>> {
  const repl = createNodeRepl({ syncMode: "auto", sandbox: walls });
  try {
    await repl.setContextText(`The code word is ${docSecret}.`);
    repl.setSubcallHandler(async (r) => r.prompts.map(() => "ok"));
    const first = await repl.runCell(prelude(canary.url, canary.wsUrl), { timeoutMs: 30_000 });
    expect(first.stdout).toContain("PRELUDE-OK secret-found");
    const out: Array<[Attack, string]> = [];
    for (const attack of list) {
      const r = await repl.runCell(attackCell(attack), { timeoutMs: 20_000 });
      out.push([attack, verdictOf(attack.name, r.stdout + r.stderr)]);
      // A probe that signalled the bystander would end the others' chance to: start it again.
      if (!alive(canaries.bystanderPid)) {
        bystander = spawn("sleep", ["600"], { stdio: "ignore" });
        canaries.bystanderPid = bystander.pid!;
        probes = hostProbes(canaries);
      }
    }
    return out;
  } finally {
    repl.close();
    await rm(canaries.writeTarget, { force: true });
    await rm(canaries.spawnMarker, { force: true });
  }
}
