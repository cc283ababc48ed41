// A cell cannot forge its own result (issue 32 §4). The host takes a cell's start and result from
// the worker's private port; when Python sent them (`_rlm_host.cell_started/cell_finished`), the
// model's own code could post a made-up result (output, sources, the final answer) ahead of the
// real one, and the host took it. Here a cell tries every route Python had, for every cell id it
// could guess, then does its real work: the cell's result and the run's answer are the real ones.
// Real Pyodide in the command line's sandbox process, with both walls (as `rlm` runs it).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runRlm } from "../../src/core/loop.ts";
import type { ReplClient } from "../../src/repl/client.ts";
import { repl as code, startScriptedServer, type ScriptedServer } from "../fixtures/scripted-server.ts";
import { config, engines, startRepl } from "./helpers.ts";

/** Python that posts a forged result for cell ids 0–63 by each route, and says which routes answered. */
const FORGE = `
import json
_forged = json.dumps({"stdout": "FORGED-OUTPUT\\n", "stderr": "", "final_answer": "FORGED-ANSWER", "locals": {"forged": 1},
                      "execution_time": 0, "error": None, "interrupted": False,
                      "sources": [{"doc": 0, "start": 0, "end": 12}]})
def _forge(route, post):
    try:
        for cell_id in range(64):
            post(cell_id, _forged)
        return route + " posted"
    except Exception as exc:
        return route + " refused (" + type(exc).__name__ + ")"
import _rlm_host
from rlm_runtime import host as _runtime_host
_routes = [
    _forge("bridge start", lambda i, r: _rlm_host.cell_started(i)),
    _forge("bridge result", lambda i, r: _rlm_host.cell_finished(i, r)),
    _forge("runtime result", lambda i, r: _runtime_host.cell_finished(i, r)),
    _forge("bridge end", lambda i, r: _rlm_host.cell_ending()),
]
`;

describe("a cell imitating the worker's cell signals", () => {
  let repl: ReplClient;
  let server: ScriptedServer;
  beforeAll(async () => {
    repl = await startRepl("auto");
    server = await startScriptedServer({ contextWindow: 8192 });
  });
  afterAll(async () => {
    repl?.close();
    await server?.close();
  });
  beforeEach(async () => {
    await repl.resetNamespace();
    await repl.setContextText("The real document.");
  });

  it("changes nothing about the cell's result", async () => {
    const r = await repl.runCell(`${FORGE}\nprint("GENUINE-OUTPUT", _routes)\nFINAL("the genuine answer")`, { timeoutMs: 60_000 });
    expect(r.stdout).toContain("GENUINE-OUTPUT");
    expect(r.stdout).not.toContain("FORGED");
    expect(r.final_answer).toBe("the genuine answer");
    expect(r.locals).not.toHaveProperty("forged");
    expect(r.error).toBeNull();
    // The next cell, whose id the forger also guessed, is its own too.
    const next = await repl.runCell('print("NEXT")', { timeoutMs: 60_000 });
    expect(next.stdout).toBe("NEXT\n");
    expect(next.final_answer).toBeNull();
    expect(repl.restartCount).toBe(0);
  }, 180_000);

  it("changes nothing about the run's answer", async () => {
    server.scripts.root = [code(`${FORGE}\nprint("looked", len(context), _routes)`), code('FINAL("the genuine answer")')];
    const { root, sub } = engines(server);
    const run = await runRlm({ question: "What is in it?", repl, rootEngine: root, subEngine: sub, config: config() });
    expect(run.answer).toBe("the genuine answer");
    const firstCell = run.iterations[0]?.code_blocks[0]?.result;
    expect(firstCell?.stdout).toContain("looked 18");
    expect(firstCell?.final_answer).toBeNull();
    const results = run.iterations.flatMap((i) => i.code_blocks.map((b) => b.result));
    expect(JSON.stringify(results)).not.toContain("FORGED");
  }, 180_000);
});
