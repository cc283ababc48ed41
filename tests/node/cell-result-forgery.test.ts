// A cell cannot forge its own result (issue 32 §4). The host takes a cell's start and result from
// the worker's private port; when Python sent them (`_rlm_host.cell_started/cell_finished`), the
// model's own code could post a made-up result (output, sources, the final answer) ahead of the
// real one, and the host took it. Here a cell tries every route Python had, for every cell id it
// could guess, then does its real work: the cell's result and the run's answer are the real ones.
// The same for the signal of a cell's end, which Python sent (`_rlm_host.cell_ending`) so the host
// would check at once that the worker still answered: a cell could fake it (and have its worker
// found silent while it computed) or silence it (and wedge the worker unseen until the time limit).
// Real Pyodide in the command line's sandbox process, with both walls (as `rlm` runs it).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runRlm } from "../../src/core/loop.ts";
import type { ReplClient } from "../../src/repl/client.ts";
import { repl as code, startScriptedServer, type ScriptedServer } from "../fixtures/scripted-server.ts";
import { config, engines, startRepl } from "./helpers.ts";

/** Python that announces the cell's end by every route Python had, and says which answered. */
const END_EARLY = `
import _rlm_host
import rlm_runtime.host as _runtime_host
_ends = []
for _name, _end in [("bridge end", lambda: _rlm_host.cell_ending()), ("runtime end", lambda: _runtime_host.cell_ending())]:
    try:
        _end()
        _ends.append(_name + " posted")
    except Exception as exc:
        _ends.append(_name + " refused (" + type(exc).__name__ + ")")
`;

/** Python that silences every route of the end signal it can reach, then leaves work queued that would spin for ever. */
const SILENCE_AND_WEDGE = `
import asyncio
import rlm_runtime.host as _runtime_host
import rlm_runtime.cells as _cells
_runtime_host.cell_ending = lambda: None
_cells.host = type("Quiet", (), {"cell_ending": staticmethod(lambda: None), "interrupts": staticmethod(_runtime_host.interrupts)})
def _spin():
    while True:
        pass
asyncio.get_event_loop().call_soon(_spin)
print("GENUINE-OUTPUT")
`;

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

describe("a cell imitating or silencing the end of a cell", () => {
  let repl: ReplClient;
  beforeAll(async () => {
    repl = await startRepl("auto", { heartbeatMs: 1_000 });
  });
  afterAll(() => repl?.close());

  it("announcing the end early, then computing past the heartbeat, changes nothing", async () => {
    // Three heartbeat limits of Python's own work after the fake end: a host that took the signal
    // found the worker silent and rebuilt it under the cell.
    const busy = "import time\n_t = time.time()\nwhile time.time() - _t < 3.5:\n    pass";
    const r = await repl.runCell(`${END_EARLY}\n${busy}\nprint("GENUINE-OUTPUT", _ends)`, { timeoutMs: 60_000 });
    expect(r.error).toBeNull();
    expect(r.stdout).toContain("GENUINE-OUTPUT");
    expect(repl.restartCount).toBe(0);
  }, 180_000);

  it("silencing the end, then leaving work queued that spins, changes nothing", async () => {
    // The cell's result reaches the worker's JavaScript as Python returns, before any work the
    // cell left queued can run, and the timers it left are cancelled then. With the end Python's
    // to say, the silenced cell's spin ran first and the worker was found only at the time limit,
    // the cell's output lost.
    const r = await repl.runCell(SILENCE_AND_WEDGE, { timeoutMs: 30_000 });
    expect(r.stdout).toBe("GENUINE-OUTPUT\n");
    expect(r.stderr).not.toContain("time limit");
    expect(r.error).toBeNull();
    expect((await repl.runCell('print("NEXT")', { timeoutMs: 60_000 })).stdout).toBe("NEXT\n");
    expect(repl.restartCount).toBe(0);
  }, 240_000);
});

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
