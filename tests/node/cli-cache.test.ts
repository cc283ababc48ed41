// The `rlm` start-up cache as a person meets it: real processes, the scripted model server.
// The first run makes a snapshot, later runs restore it; --cache-dir and RLM_CACHE_DIR move it,
// --no-cache and RLM_CACHE_DIR=off turn it off; a bad file falls back and --verbose says so;
// several processes at once never see a half-written file. Also: --help loads no TypeScript.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { version as pyodideVersion } from "pyodide";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SnapshotRejected } from "../../src/repl/snapshot-store.ts";
import { openEnvelope, snapshotKey, runtimeText } from "../../workers/shared/snapshot-format.ts";
import { readRuntimePackage } from "../../workers/node/runtime-package.node.ts";
import { snapshotFileName } from "../../workers/node/snapshot-store.node.ts";
import { repl as code, startScriptedServer, type ScriptedServer } from "../fixtures/scripted-server.ts";

const bin = new URL("../../bin/rlm.mjs", import.meta.url).pathname;
const runtimeSource = runtimeText(readRuntimePackage());
const key = snapshotKey(pyodideVersion, runtimeSource);
let server: ScriptedServer;
let dir: string;
let doc: string;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function rlm(args: string[], env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<Run> {
  return new Promise((resolve) => {
    // No inherited RLM_CACHE_DIR: each test says where its cache is.
    const { RLM_CACHE_DIR: _ignored, ...inherited } = process.env;
    const child = execFile(
      process.execPath,
      [...nodeArgs, bin, ...args],
      { timeout: 150_000, env: { ...inherited, ...env } },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr });
      },
    );
    child.stdin?.end();
  });
}

const ask = (extra: string[], env: Record<string, string> = {}) =>
  rlm(
    [
      "--context-file",
      doc,
      "--task",
      "What is the secret code?",
      "--base-url",
      server.baseUrl,
      "--model",
      "root-model",
      "--verbose",
      ...extra,
    ],
    env,
  );

function isGoodSnapshot(bytes: Uint8Array): boolean {
  try {
    openEnvelope(key, bytes);
    return true;
  } catch (err) {
    if (err instanceof SnapshotRejected) return false;
    throw err;
  }
}

beforeAll(async () => {
  server = await startScriptedServer({ contextWindow: 8192 });
  server.scripts.root = [code("import re\ncode = re.search(r'secret code is (\\w+)', context).group(1)\nprint(code)"), code("FINAL(code)")];
  dir = await mkdtemp(join(tmpdir(), "rlm-cli-cache-"));
  doc = join(dir, "hay.txt");
  await writeFile(doc, `${"hay ".repeat(50_000)}\nThe secret code is ZEBRA42.\n${"hay ".repeat(50_000)}`);
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("rlm --help", () => {
  it("answers without loading TypeScript or Pyodide", async () => {
    // A module hook that fails the process if anything TypeScript, tsx or pyodide is imported.
    const hooks = `export async function resolve(s, c, next) { if (/tsx|pyodide|\\.ts$/.test(s)) throw new Error("--help loaded " + s); return next(s, c); }`;
    const install = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
    const out = await rlm(["--help"], {}, ["--import", `data:text/javascript,${encodeURIComponent(install)}`]);
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("--cache-dir DIR");
    expect(out.stdout).toContain("--no-cache");
    expect(out.stdout).toContain("rlm warmup");
  });
});

describe("the start-up cache", () => {
  it("is made by the first run in --cache-dir and restored by the next, and --verbose shows where the time went", async () => {
    const cache = join(dir, "by-option");
    const first = await ask(["--cache-dir", cache]);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe("ZEBRA42\n");
    expect(first.stderr).toMatch(/without a snapshot \(no stored snapshot yet\); made one in .*by-option for next time/);
    expect(isGoodSnapshot(new Uint8Array(await readFile(join(cache, snapshotFileName(key)))))).toBe(true);

    const second = await ask(["--cache-dir", cache]);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe("ZEBRA42\n");
    expect(second.stderr).toMatch(
      /Python started in \d+\.\d\d s from the snapshot in .*by-option; sandbox: a separate process with Node's permission model/,
    );
    const lines = second.stderr.trimEnd().split("\n");
    expect(lines.at(-1)).toMatch(
      /^rlm: time \d+\.\d\d s: Python start \(restored\) \d+\.\d\d s · document \d+\.\d\d s · model \d+\.\d\d s · Python \d+\.\d\d s · sub-calls \d+\.\d\d s · other \d+\.\d\d s$/,
    );
  });

  it("RLM_CACHE_DIR moves it; RLM_CACHE_DIR=off and --no-cache turn it off", async () => {
    const cache = join(dir, "by-env");
    const moved = await rlm(["warmup"], { RLM_CACHE_DIR: cache });
    expect(moved.code).toBe(0);
    expect(moved.stdout).toMatch(/Python snapshot made in .*by-env/);
    // The snapshot, and Pyodide's JavaScript compiled (tests/node/pyodide-code-cache.test.ts).
    expect((await readdir(cache)).sort()).toEqual([expect.stringMatching(/^pyodide-js-[0-9a-f]{16}\.bin$/), snapshotFileName(key)]);

    const off = await ask([], { RLM_CACHE_DIR: "off" });
    expect(off.code).toBe(0);
    expect(off.stderr).toMatch(/without a snapshot \(start-up cache off: RLM_CACHE_DIR=off\)/);
    const unused = join(dir, "never-created");
    const noCache = await ask(["--no-cache", "--cache-dir", unused]);
    expect(noCache.code).toBe(0);
    expect(noCache.stderr).toMatch(/without a snapshot \(start-up cache off: --no-cache\)/);
    expect(existsSync(unused)).toBe(false);
    const warmupOff = await rlm(["warmup"], { RLM_CACHE_DIR: "off" });
    expect(warmupOff.code).toBe(2);
    expect(warmupOff.stderr).toContain("the cache is off (RLM_CACHE_DIR=off)");
  });

  it("a corrupt file is not trusted: the run boots normally, --verbose says why, and the file is good again", async () => {
    const cache = join(dir, "corrupt");
    expect((await rlm(["warmup", "--cache-dir", cache])).code).toBe(0);
    const file = join(cache, snapshotFileName(key));
    const bytes = new Uint8Array(await readFile(file));
    bytes[bytes.byteLength - 12_345] = bytes[bytes.byteLength - 12_345]! ^ 0x5a;
    await writeFile(file, bytes);
    const run = await ask(["--cache-dir", cache]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("ZEBRA42\n");
    expect(run.stderr).toMatch(/without a snapshot \(the stored snapshot was rejected: its checksum does not match .*\); made one/);
    expect(isGoodSnapshot(new Uint8Array(await readFile(file)))).toBe(true);
    const check = await rlm(["warmup", "--cache-dir", cache, "--verbose"]);
    expect(check.stdout).toMatch(/Python snapshot checked in/);
  });

  it("several processes writing at once never leave or show a half-written file", async () => {
    const cache = join(dir, "concurrent");
    const file = join(cache, snapshotFileName(key));
    // Three processes find no snapshot and each make and write one.
    const firsts = await Promise.all([0, 1, 2].map(() => rlm(["warmup", "--cache-dir", cache])));
    expect(firsts.map((r) => r.code)).toEqual([0, 0, 0]);
    expect(firsts.every((r) => /Python snapshot (made|checked)/.test(r.stdout))).toBe(true);
    expect(isGoodSnapshot(new Uint8Array(await readFile(file)))).toBe(true);

    // Now two rebuild it at once while this process keeps reading it, as a starting rlm would.
    let writing = true;
    let reads = 0;
    const torn: string[] = [];
    const reader = (async () => {
      while (writing) {
        try {
          openEnvelope(key, new Uint8Array(await readFile(file)));
          reads += 1;
        } catch (err) {
          torn.push(err instanceof Error ? err.message : String(err));
        }
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    const rebuilds = await Promise.all([0, 1].map(() => rlm(["warmup", "--cache-dir", cache, "--rebuild"])));
    writing = false;
    await reader;
    expect(rebuilds.map((r) => r.code)).toEqual([0, 0]);
    expect(rebuilds.every((r) => /Python snapshot made/.test(r.stdout))).toBe(true);
    expect(torn).toEqual([]);
    expect(reads).toBeGreaterThan(10);
    expect((await readdir(cache)).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });
});
