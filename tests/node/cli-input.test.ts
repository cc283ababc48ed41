// What `rlm` accepts as a document (issue 32 §5): nothing empty, nothing binary, each refused
// with one line and exit 2; a zip unpacked into the same `context` dict the page makes of it
// (the page's ingest, src/ingest), with what was left out said on stderr.
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zipSync, strToU8 } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingestInNode } from "../../src/ingest/node.ts";
import { repl as code, startScriptedServer, type ScriptedServer } from "../fixtures/scripted-server.ts";
import { runRlm } from "./run-cli.ts";
import { TEST_CLI_CACHE_DIR } from "./helpers.ts";

const bin = new URL("../../bin/rlm.mjs", import.meta.url).pathname;
let server: ScriptedServer;
let dir: string;

const run = (args: string[], input?: string | Buffer) =>
  runRlm(args, { input, timeout: 90_000, env: { ...process.env, RLM_CACHE_DIR: TEST_CLI_CACHE_DIR } });

const model = () => ["--task", "q", "--model", "root-model", "--base-url", server.baseUrl];

beforeAll(async () => {
  server = await startScriptedServer({ contextWindow: 4096 });
  dir = await mkdtemp(join(tmpdir(), "rlm-input-"));
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("rlm refuses a document with nothing to read", () => {
  it("an empty --context-file and an empty stdin", async () => {
    await writeFile(join(dir, "empty.txt"), "");
    const file = await run([...model(), "--context-file", join(dir, "empty.txt")]);
    expect(file.code).toBe(2);
    expect(file.stderr).toContain("empty.txt is empty");
    const stdin = await run(model(), "");
    expect(stdin.code).toBe(2);
    expect(stdin.stderr).toContain("the document on stdin is empty");
    expect(server.requests).toHaveLength(0);
  });

  it("binary bytes, in a file or on stdin, with the page's reason", async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 1, 2, 3]);
    await writeFile(join(dir, "picture.dat"), png);
    const file = await run([...model(), "--context-file", join(dir, "picture.dat")]);
    expect(file.code).toBe(2);
    expect(file.stderr).toMatch(/picture\.dat gives no text to read: .*PNG image/);
    const nul = Buffer.concat([Buffer.from("ELF-ish"), Buffer.alloc(64), Buffer.from("more")]);
    const stdin = await run(model(), nul);
    expect(stdin.code).toBe(2);
    expect(stdin.stderr).toMatch(/stdin gives no text to read: .*NUL bytes/);
    expect(server.requests).toHaveLength(0);
  });
});

describe("rlm unpacks a zip", () => {
  it("into the context dict the page makes, and says what it left out", async () => {
    const zip = zipSync({
      "notes/a.txt": strToU8("alpha says 1\n"),
      "notes/sub/b.md": strToU8("# beta\nbeta says 2\n"),
      "notes/logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]),
    });
    const path = join(dir, "notes.zip");
    await writeFile(path, zip);
    const page = await ingestInNode([{ file: new Blob([zip]), path: "notes.zip" }]);
    server.scripts.root = [code("import json\nFINAL(json.dumps({k: context[k] for k in sorted(context)}))")];
    const out = await run([...model(), "--context-file", path, "--mode", "rlm"]);
    expect(out.code, out.stderr).toBe(0);
    const context = JSON.parse(out.stdout) as Record<string, string>;
    expect(Object.keys(context)).toEqual(page.documents.map((d) => d.path).sort());
    expect(context).toEqual({ "notes.zip/notes/a.txt": "alpha says 1\n", "notes.zip/notes/sub/b.md": "# beta\nbeta says 2\n" });
    expect(out.stderr).toContain("notes.zip: unpacked 2 document(s) from the archive into context.");
    expect(out.stderr).toMatch(/left out notes\.zip\/notes\/logo\.png: /);
  });
});

describe("rlm's --max-time", () => {
  it("counts from the start of the command: a document that takes longer to read than the limit ends it", async () => {
    const before = server.requests.length;
    // stdin that never ends stands for a document too big to read in time (a 3 GB file ran
    // 132 s under --max-time 40): before, rlm waited for it forever.
    const child = spawn(process.execPath, [bin, ...model(), "--max-time", "3"], {
      env: { ...process.env, RLM_CACHE_DIR: TEST_CLI_CACHE_DIR },
      stdio: ["pipe", "pipe", "pipe"],
    });
    child.stdin.write("the start of a very long document\n");
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    clearTimeout(killer);
    child.stdin.destroy();
    expect(code, stderr).toBe(1);
    expect(stderr).toContain("The 3 s time limit was reached while reading the documents (--max-time counts from the start of rlm)");
    expect(server.requests).toHaveLength(before);
  });
});
