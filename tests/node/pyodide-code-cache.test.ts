// Pyodide's JavaScript from V8's code cache in the snapshot's directory (Node, issue 17): made
// after the first start, used unchanged by the next, and never trusted blindly: a damaged file, a
// module of another shape or a cache V8 refuses means Pyodide compiles its own as before, Python
// starts all the same, and a good cache takes the bad one's place.
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, sep } from "node:path";
import { pathToFileURL } from "node:url";
import vm from "node:vm";
import { crc32 } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import type { ReplClient } from "../../src/repl/client.ts";
import { localCacheWriter } from "../../src/repl/cache-writes.node.ts";
import { PyodideImportRefused, asScript, pyodideScript } from "../../workers/node/pyodide-code-cache.node.ts";

import { startRepl, useTempDir } from "./helpers.ts";

const cacheAt = (dir: string) => ({ dir, writer: localCacheWriter(dir) });

const pyodideModule = join(dirname(createRequire(import.meta.url).resolve("pyodide/package.json")), "pyodide.asm.mjs");
const dir = useTempDir("rlm-js-cache-");
const open: ReplClient[] = [];

const cacheFiles = () => readdirSync(dir()).filter((name) => name.startsWith("pyodide-js-") && name.endsWith(".bin"));

async function startAndRun(): Promise<string> {
  const repl = await startRepl("sab", { snapshotDir: dir() });
  open.push(repl);
  await repl.start();
  const out = await repl.runCell("import re\nprint(re.sub('a', 'b', 'banana'))");
  expect(out.stderr).toBe("");
  return out.stdout.trim();
}

afterEach(() => {
  for (const repl of open.splice(0)) repl.close();
});

describe("Pyodide's compiled JavaScript kept beside the snapshot", () => {
  it("is made after the first start and used as it is by the next", async () => {
    expect(await startAndRun()).toBe("bbnbnb");
    expect(cacheFiles()).toHaveLength(1);
    const file = join(dir(), cacheFiles()[0]!);
    const made = readFileSync(file);
    // Magic, then a CRC-32 of the payload, then V8's cache. (Made in the sandbox process, whose V8
    // flags differ from this test process's, so only the sandbox can tell whether V8 accepts it.)
    expect(made.readUInt32LE(4)).toBe(crc32(made.subarray(8)));

    const before = await stat(file);
    expect(await startAndRun()).toBe("bbnbnb");
    // V8 accepted it in the next start, so it was not written again.
    expect((await stat(file)).mtimeMs).toBe(before.mtimeMs);
  });

  it("a damaged file is not used: Python starts all the same and a good cache replaces it", async () => {
    const file = join(dir(), cacheFiles()[0]!);
    const good = await readFile(file);
    const damaged = Buffer.from(good);
    damaged[damaged.length >> 1]! ^= 0xff;
    await writeFile(file, damaged);
    expect(await startAndRun()).toBe("bbnbnb");
    const now = await readFile(file);
    expect(now.equals(damaged)).toBe(false);
    expect(now.readUInt32LE(4)).toBe(crc32(now.subarray(8)));
  });

  it("a cache V8 refuses (its bytes whole, but not code for this module) is replaced", async () => {
    const file = join(dir(), cacheFiles()[0]!);
    // A valid envelope around V8's cache of some other script.
    const foreign = new vm.Script("(function () { return 1 + 1; })").createCachedData();
    const header = Buffer.alloc(8);
    header.writeUInt32LE(0x524a5331, 0);
    header.writeUInt32LE(crc32(foreign), 4);
    await writeFile(file, Buffer.concat([header, foreign]));
    expect(await startAndRun()).toBe("bbnbnb");
    expect((await readFile(file)).length).toBeGreaterThan(100_000);
  });
});

describe("pyodide.asm.mjs as a script", () => {
  const module = readFileSync(pyodideModule, "utf8");

  it("compiles, and defines Pyodide's module factory with its own URL and imports", () => {
    const define = new vm.Script(asScript(module)).runInThisContext() as (url: string, load: (s: string) => Promise<unknown>) => unknown;
    expect(typeof define("file:///pyodide/pyodide.asm.mjs", async () => ({}))).toBe("function");
    expect(asScript(module)).not.toMatch(/import\.meta|export default/);
  });

  it("a module of another shape is refused, so Pyodide imports its own", () => {
    expect(() => asScript(`${module}\nexport const extra = 1;`)).toThrow();
    expect(() => new vm.Script(asScript(`import x from "y";\n${module}`))).toThrow(SyntaxError);
  });
});

describe("the loader, on stand-in modules", () => {
  const standIns = async (module: string) => {
    const root = await mkdtemp(join(tmpdir(), "rlm-js-standin-"));
    const pyodideDir = join(root, "pyodide") + sep;
    await mkdir(pyodideDir);
    await writeFile(join(pyodideDir, "pyodide.asm.mjs"), module);
    return { root, pyodideDir, cacheDir: join(root, "cache") };
  };
  const factoryModule = [
    "async function _createPyodideModule(settings) {",
    '  const { sep } = await import("node:path");',
    "  return { url: import.meta.url, sep, settings };",
    "}",
    "export default _createPyodideModule;",
    "",
  ].join("\n");

  it("keeps the module's own URL and imports, and caches it for the next process", async () => {
    const { root, pyodideDir, cacheDir } = await standIns(factoryModule);
    try {
      const first = pyodideScript(pyodideDir, cacheAt(cacheDir), "0.0.0")!;
      const made = (await first.createPyodideModule({ a: 1 })) as { url: string; sep: string; settings: unknown };
      expect(made).toEqual({ url: pathToFileURL(join(pyodideDir, "pyodide.asm.mjs")).href, sep, settings: { a: 1 } });
      await first.keep();
      const [name] = readdirSync(cacheDir);
      expect(name).toMatch(/^pyodide-js-[0-9a-f]{16}\.bin$/);
      const written = await stat(join(cacheDir, name!));
      const second = pyodideScript(pyodideDir, cacheAt(cacheDir), "0.0.0")!;
      second.prepare();
      expect(await second.createPyodideModule({ b: 2 })).toMatchObject({ settings: { b: 2 } });
      await second.keep();
      expect((await stat(join(cacheDir, name!))).mtimeMs).toBe(written.mtimeMs);
      // Another Pyodide version is another file.
      const other = pyodideScript(pyodideDir, cacheAt(cacheDir), "0.0.1")!;
      await other.createPyodideModule({});
      await other.keep();
      expect(readdirSync(cacheDir).filter((n) => n.endsWith(".bin"))).toHaveLength(2);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("a module of another shape is imported the ordinary way, and nothing is cached", async () => {
    const { root, pyodideDir, cacheDir } = await standIns(
      "export const extra = 1;\nexport default async function (settings) { return { imported: true, settings }; }\n",
    );
    try {
      const script = pyodideScript(pyodideDir, cacheAt(cacheDir), "0.0.0")!;
      expect(await script.createPyodideModule({ c: 3 })).toEqual({ imported: true, settings: { c: 3 } });
      await script.keep();
      expect(readdirSync(root)).toEqual(["pyodide"]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("lets Pyodide import only the Node builtins it starts with, and nothing once told to refuse", async () => {
    const importing = [
      "async function _createPyodideModule(settings) {",
      "  const tryImport = (s) => import(s).then(() => 'ok', (e) => e.name);",
      "  return { tryImport };",
      "}",
      "export default _createPyodideModule;",
      "",
    ].join("\n");
    const { root, pyodideDir } = await standIns(importing);
    try {
      const script = pyodideScript(pyodideDir, null, "0.0.0")!;
      const { tryImport } = (await script.createPyodideModule({})) as { tryImport: (s: string) => Promise<string> };
      expect(await tryImport("node:path")).toBe("ok");
      for (const specifier of ["node:net", "node:tls", "node:child_process", "ws", "data:text/javascript,export default 1"]) {
        expect(await tryImport(specifier)).toBe(PyodideImportRefused.name);
      }
      script.refuseImports();
      expect(await tryImport("node:path")).toBe(PyodideImportRefused.name);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
