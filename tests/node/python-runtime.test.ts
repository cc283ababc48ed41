// The Python runtime as a package (workers/python/rlm_runtime/), in a real REPL: the worker holds
// one object and nothing else of Python is left lying in __main__; the helpers are the
// vocabulary's (src/core/repl-vocabulary.ts), each with the signature it declares; and an
// interpreter restored from a snapshot holds the same package as one booted from scratch, with no
// installation files left behind in either.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReplClient } from "../../src/repl/client.ts";
import { REPL_VOCABULARY } from "../../src/core/repl-vocabulary.ts";
import { startRepl } from "./helpers.ts";

const INSPECT = `
import inspect, json, os, sys
import __main__
import rlm_runtime
from rlm_runtime import helpers, vocabulary
print(json.dumps({
    "signatures": [name + str(inspect.signature(globals()[name])) for name in vocabulary.FUNCTIONS],
    "installed": [name for name in vocabulary.FUNCTIONS if globals()[name] is helpers.SCAFFOLD[name]],
    "reserved": list(vocabulary.RESERVED),
    "loose": [n for n in ("run_cell", "probe", "load_documents", "reset_namespace", "_evidence", "_ns") if hasattr(__main__, n)],
    "files_left": os.path.exists("/tmp/rlm-runtime-install"),
    "on_path": [p for p in sys.path if "rlm-runtime" in p],
    "module_type": type(rlm_runtime.runtime).__name__,
}))
`;

interface Inspected {
  signatures: string[];
  installed: string[];
  reserved: string[];
  loose: string[];
  files_left: boolean;
  on_path: string[];
  module_type: string;
}

async function inspect(repl: ReplClient): Promise<Inspected> {
  const r = await repl.runCell(INSPECT, { timeoutMs: 60_000 });
  expect(r.stderr).toBe("");
  return JSON.parse(r.stdout) as Inspected;
}

const functions = REPL_VOCABULARY.filter((e) => e.kind === "function");

function expectThePackage(seen: Inspected): void {
  expect(seen.signatures).toEqual(functions.map((e) => e.signature));
  expect(seen.installed).toEqual(functions.map((e) => e.name));
  expect(seen.reserved).toEqual(REPL_VOCABULARY.map((e) => e.name));
  expect(seen.loose).toEqual([]);
  expect(seen.files_left).toBe(false);
  expect(seen.on_path).toEqual([]);
  expect(seen.module_type).toBe("Runtime");
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rlm-python-runtime-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the Python runtime package", () => {
  it("booted from scratch: one runtime object, the vocabulary's helpers with their signatures (given back after a cell rebinds one), no files left", async () => {
    const repl = await startRepl("sab", { sandbox: false, snapshotDir: null });
    try {
      expect((await repl.start()).snapshot?.path).toBe("plain");
      expectThePackage(await inspect(repl));
      // A cell may rebind a helper; the next cell finds the runtime's again (the vocabulary reserves it).
      await repl.runCell("search = 5\nmap_query = None", { timeoutMs: 60_000 });
      const r = await repl.runCell("print(callable(search), callable(map_query))", { timeoutMs: 60_000 });
      expect(r.stdout.trim()).toBe("True True");
    } finally {
      repl.close();
    }
  });

  it("restored from a snapshot: the same package, made and then restored", async () => {
    for (const path of ["made-snapshot", "restored"]) {
      const repl = await startRepl("sab", { sandbox: false, snapshotDir: dir });
      try {
        expect((await repl.start()).snapshot?.path).toBe(path);
        expectThePackage(await inspect(repl));
      } finally {
        repl.close();
      }
    }
  });
});
