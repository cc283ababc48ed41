// Cells that await something end through a second call (cells.finish_cell), which must finish the
// cell it was asked for and no other. Python kept such cells in one list and finish_cell took the
// last: with two cells awaiting at once, each took the other's result. Here two cells overlap and
// end in the other order than they began, and a cell asks Python to finish a cell that does not
// exist. Real Pyodide and the worker's own JavaScript (repl-runtime.ts), in this process, so the
// test calls the worker directly and can have two cells under way at once, as the host never
// does on purpose.
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parseCellResult, type CellResult, type ReplWorkerApi } from "../../src/repl/protocol.ts";
import { readRuntimePackage } from "../../workers/node/runtime-package.node.ts";
import { createReplWorker } from "../../workers/shared/repl-runtime.ts";

const OUTPUT_CAP = 10_000;
const pyodideDir = `${dirname(createRequire(import.meta.url).resolve("pyodide/package.json"))}/`;

describe("cells that await, under way at once", () => {
  let worker: ReplWorkerApi;
  const run = async (code: string, id: number): Promise<CellResult> =>
    parseCellResult(await worker.runCell(code, OUTPUT_CAP, id), OUTPUT_CAP);

  beforeAll(async () => {
    worker = createReplWorker({ runtimeFiles: readRuntimePackage(), indexURL: pyodideDir });
    await worker.boot({ syncMode: "auto", hostPort: new MessageChannel().port1, outputCap: OUTPUT_CAP, snapshot: { kind: "off" } });
  });

  it("each ends with its own result, though the later one ends first", async () => {
    expect((await run("import asyncio\nfirst_may_end = asyncio.Event()", 1)).error).toBeNull();
    // The first waits for the second; the second awaits too, so both are left awaiting at once.
    const first = run('await first_may_end.wait()\nfirst = "one"\nprint("FIRST")', 2);
    const second = run('await asyncio.sleep(0)\nsecond = "two"\nprint("SECOND")\nfirst_may_end.set()', 3);
    const [a, b] = await Promise.all([first, second]);
    expect([a.error, a.stdout, a.locals["first"]]).toEqual([null, "FIRST\n", "one"]);
    expect([b.error, b.stdout, b.locals["second"]]).toEqual([null, "SECOND\n", "two"]);
  });

  it("a cell cannot finish another by naming a cell that is not awaiting", async () => {
    expect((await run("import asyncio\nmay_end = asyncio.Event()", 4)).error).toBeNull();
    const waiting = run('await may_end.wait()\nprint("WAITED")', 5);
    // Model code can reach the runtime object: asking it for a cell that is not awaiting (or
    // for "the last one") must finish nothing, and the cell that does await keeps its result.
    // The waiting cell may end once the forger yields; the forger asks first, so a finish_cell
    // that took "the last cell awaiting" would hand it the waiting cell's result. (It does not
    // yield otherwise: two cells under way share sys.stdout, and the waiting one would print
    // into the forger's output.)
    const forger = await run(
      [
        "from rlm_runtime import runtime",
        "may_end.set()",
        "for args in [(), (12345,), (-1,)]:",
        "    try:",
        "        stolen = await runtime.finish_cell(*args)",
        "        print('FINISHED', args, stolen[:40])",
        "    except LookupError:",
        "        print('REFUSED', args)",
        "    except TypeError:",
        "        print('NEEDS AN ID', args)",
      ].join("\n"),
      6,
    );
    expect(forger.error).toBeNull();
    expect(forger.stdout).toBe("NEEDS AN ID ()\nREFUSED (12345,)\nREFUSED (-1,)\n");
    const waited = await waiting;
    expect([waited.error, waited.stdout]).toEqual([null, "WAITED\n"]);
    expect((await run('print("NEXT")', 7)).stdout).toBe("NEXT\n");
  });
});
