// The Pyodide REPL worker through its host-side client: both ways Python waits for a sub-call
// (JSPI and SharedArrayBuffer), output capture, errors, reserved names, documents, and
// recovery from code that will not stop.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ReplClient } from "../../src/repl/client.ts";
import { startRepl, text } from "./helpers.ts";

describe.each(["jspi", "sab"] as const)("REPL with %s sub-calls", (mode) => {
  let repl: ReplClient;
  beforeAll(async () => {
    repl = await startRepl(mode);
    expect(repl.syncMode).toBe(mode);
  });
  afterAll(() => repl?.close());
  beforeEach(async () => {
    await repl.resetNamespace();
    await repl.setContextText("the context");
    repl.setSubcallHandler(async (req) => req.prompts.map((p) => `${req.kind}:${p.toUpperCase()}`));
  });

  it("llm_query blocks Python until the host answers", async () => {
    repl.setSubcallHandler(async (req) => {
      await new Promise((r) => setTimeout(r, 50));
      return req.prompts.map((p) => `slow ${p}`);
    });
    const r = await repl.runCell("a = llm_query('one')\nb = llm_query('two')\nprint(a, '|', b)");
    expect(r.stdout.trim()).toBe("slow one | slow two");
    expect(r.execution_time).toBeGreaterThanOrEqual(0.09);
  });

  it("a cell that awaits (top-level await) runs to its end, sub-calls and errors included", async () => {
    // Such a cell cannot end in one plain call: the worker awaits the rest of it (cells.finish_cell).
    const code = [
      "import asyncio",
      "await asyncio.sleep(0.01)",
      "x = llm_query('after')",
      "try:",
      "    await asyncio.sleep(0)",
      "    raise ValueError('inside')",
      "except ValueError as e:",
      "    print('caught', e)",
      "print(x)",
    ].join("\n");
    const r = await repl.runCell(code);
    expect(r.error).toBeNull();
    expect(r.stdout).toBe("caught inside\nllm:AFTER\n");
    const failed = await repl.runCell("import asyncio\nawait asyncio.sleep(0)\n1/0");
    expect(failed.error).toBe("ZeroDivisionError");
    expect((await repl.runCell("print('next')")).stdout).toBe("next\n");
  });

  it("llm_query_batched keeps order and rlm_query reaches the host as an rlm request", async () => {
    const r = await repl.runCell("print(llm_query_batched(['a', 'b', 'c']))\nprint(rlm_query('d'))\nprint(llm_query_batched([]))");
    expect(r.stdout.trim().split("\n")).toEqual(["['llm:A', 'llm:B', 'llm:C']", "rlm:D", "[]"]);
  });

  it("a host failure becomes an Error: string, never an exception", async () => {
    repl.setSubcallHandler(async () => {
      throw new Error("model offline");
    });
    const r = await repl.runCell("x = llm_query('q')\nprint(x)");
    expect(r.error).toBeNull();
    expect(r.stdout.trim()).toBe("Error: model offline");
  });

  it("keeps state across cells and reports exceptions as Type: message with the line", async () => {
    await repl.runCell("counter = 10");
    const bad = await repl.runCell("counter += 1\nvalue = {}['missing']");
    expect(bad.error).toBe("KeyError");
    expect(bad.stderr).toContain("KeyError: 'missing'");
    expect(bad.stderr).toContain("at line 2: value = {}['missing']");
    const good = await repl.runCell("print(counter)");
    expect(good.stdout.trim()).toBe("11");
  });

  it("reports syntax errors with the line", async () => {
    const r = await repl.runCell("x = (1,\ny = 2");
    expect(r.error).toBe("SyntaxError");
    expect(r.stderr).toMatch(/SyntaxError: .*\n\s+at line 1: x = \(1,/);
  });

  it("captures stdout and stderr separately, and echoes a bare last expression", async () => {
    const r = await repl.runCell("import sys\nprint('out')\nprint('err', file=sys.stderr)\nlen(context)");
    expect(r.stdout).toBe("out\n11\n");
    expect(r.stderr).toBe("err\n");
  });

  it("caps a cell that prints 50 MB, keeping both ends", async () => {
    const r = await repl.runCell("print('A' * 50_000_000)\nprint('TAIL-END')");
    expect(r.stdout.length).toBeLessThan(250_000);
    expect(r.stdout.startsWith("AAAA")).toBe(true);
    expect(r.stdout).toContain("characters omitted");
    expect(r.stdout.trimEnd().endsWith("TAIL-END")).toBe(true);
  });

  it("restores reserved names a cell rebinds", async () => {
    const r1 = await repl.runCell("context = 'overwritten'\nllm_query = None\nanswer = 7\nprint(context)");
    expect(r1.stdout.trim()).toBe("overwritten");
    expect(r1.stderr).toContain("`answer` is a dict here");
    const r2 = await repl.runCell("print(context)\nprint(llm_query('x'))\nprint(answer)");
    // `answer` is the dict again; the value the cell gave it is kept as its content (issue 25).
    expect(r2.stdout.trim().split("\n")).toEqual(["the context", "llm:X", "{'content': '7', 'ready': False}"]);
  });

  it("submits answers through FINAL, FINAL_VAR and the answer dict", async () => {
    expect((await repl.runCell("FINAL([1, 2])")).final_answer).toBe("[1, 2]");
    expect((await repl.runCell("res = 'from var'\nFINAL_VAR('res')")).final_answer).toBe("from var");
    expect((await repl.runCell("FINAL_VAR(12)")).final_answer).toBe("12");
    expect((await repl.runCell("answer['content'] = 'dict'\nanswer['ready'] = True")).final_answer).toBe("dict");
    expect((await repl.runCell("answer = {'content': 'rebound', 'ready': True}")).final_answer).toBe("rebound");
    // A submission is reported once, not again by the next cell.
    expect((await repl.runCell("print(1)")).final_answer).toBeNull();
    const missing = await repl.runCell("FINAL_VAR('nope')");
    expect(missing.final_answer).toBeNull();
    expect(missing.stderr).toContain("no variable named 'nope'");
  });

  it("an answer set before an exception in the same cell still counts", async () => {
    const r = await repl.runCell("FINAL('early')\nraise ValueError('after')");
    expect(r.final_answer).toBe("early");
    expect(r.stderr).toContain("ValueError: after");
  });

  it("SHOW_VARS lists variables with types and sizes", async () => {
    const r = await repl.runCell("items = [1, 2, 3]\nname = 'x'\nprint(SHOW_VARS())");
    expect(r.stdout).toContain("items (list, len 3)");
    expect(r.stdout).toContain("name (str, len 1)");
    expect(r.stdout).not.toContain("context");
  });

  it("survives sys.exit and keeps going", async () => {
    const r = await repl.runCell("import sys\nkeep = 1\nsys.exit(3)");
    expect(r.error).toBe("SystemExit");
    expect((await repl.runCell("print(keep)")).stdout.trim()).toBe("1");
  });

  it("a per-cell time limit interrupts a loop within a second and keeps variables", async () => {
    await repl.runCell("survivor = 'yes'");
    const started = Date.now();
    const r = await repl.runCell("import time\nwhile True:\n    time.sleep(0.001)", { timeoutMs: 500 });
    expect(Date.now() - started).toBeLessThan(1500);
    expect(r.interrupted).toBe(true);
    expect(r.stderr).toContain("time limit");
    expect((await repl.runCell("print(survivor)")).stdout.trim()).toBe("yes");
  });

  it("the time limit counts Python's own time: a cell whose sub-calls outlast it still finishes", async () => {
    // A local CPU model takes a minute or more per chunk: the wait is the model's, not the code's.
    repl.setSubcallHandler(async (req) => {
      await new Promise((r) => setTimeout(r, 400));
      return req.prompts.map((p) => `read ${p}`);
    });
    const r = await repl.runCell("parts = [llm_query(p) for p in ['a', 'b', 'c']]\nprint(parts)", { timeoutMs: 500 });
    expect(r.interrupted).toBe(false);
    expect(r.error).toBeNull();
    expect(r.stdout.trim()).toBe("['read a', 'read b', 'read c']");
  });

  it("a loop after a long sub-call is still stopped at the limit, and the message says what counts", async () => {
    repl.setSubcallHandler(async (req) => {
      await new Promise((r) => setTimeout(r, 700));
      return req.prompts.map(() => "ok");
    });
    const started = Date.now();
    const r = await repl.runCell("first = llm_query('a')\nwhile True:\n    pass", { timeoutMs: 500 });
    expect(r.interrupted).toBe(true);
    expect(r.stderr).toContain("time limit (Python's own time; waiting for sub-calls does not count)");
    expect(Date.now() - started).toBeGreaterThanOrEqual(1150); // 700 ms of model time, then 500 of Python's
    expect((await repl.runCell("print(first)")).stdout.trim()).toBe("ok");
  });

  it("Stop during a sub-call ends the cell with KeyboardInterrupt", async () => {
    repl.setSubcallHandler(() => new Promise(() => undefined)); // never answers
    const pending = repl.runCell("kept = 5\nllm_query('forever')");
    setTimeout(() => repl.interrupt(), 300);
    const r = await pending;
    expect(r.error).toBe("KeyboardInterrupt");
    expect((await repl.runCell("print(kept)")).stdout.trim()).toBe("5");
  });
});

describe("REPL documents and recovery", () => {
  let repl: ReplClient;
  beforeAll(async () => {
    repl = await startRepl("auto", { killGraceMs: 1000 });
  });
  afterAll(() => repl?.close());

  it("one document becomes a str; several become a dict path -> text", async () => {
    const one = await repl.loadDocuments([{ name: "a.txt", data: text("héllo") }]);
    expect(one).toMatchObject({ type: "str", total_chars: 5, items: 1 });
    const many = await repl.loadDocuments([
      { name: "src/a.py", data: text("print(1)\n") },
      { name: "README.md", data: text("# hi\n") },
    ]);
    expect(many).toMatchObject({ type: "dict", items: 2, total_chars: 14 });
    const r = await repl.runCell("print(sorted(context))");
    expect(r.stdout.trim()).toBe("['README.md', 'src/a.py']");
    const list = await repl.loadDocuments(
      [
        { name: "x", data: text("a") },
        { name: "y", data: text("bc") },
      ],
      "list",
    );
    expect(list).toMatchObject({ type: "list", items: 2, total_chars: 3 });
  });

  it("decodes UTF-16 with a BOM and falls back to Latin-1 for invalid UTF-8", async () => {
    const utf16 = new Uint8Array([0xff, 0xfe, 0x68, 0x00, 0x69, 0x00]);
    const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9]); // "café" in Latin-1, invalid UTF-8
    const info = await repl.loadDocuments([
      { name: "u16.txt", data: new Blob([utf16]) },
      { name: "l1.txt", data: new Blob([latin1]) },
    ]);
    expect(info.encodings).toEqual(["utf-16", "latin-1"]);
    const r = await repl.runCell("print(context['u16.txt'], context['l1.txt'])");
    expect(r.stdout.trim()).toBe("hi café");
  });

  it("makes a 100 MB document available as context", async () => {
    const line = "0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ !?\n";
    const size = 100 * 1024 * 1024;
    const big = new Blob([line.repeat(Math.ceil(size / line.length))]);
    const started = Date.now();
    const info = await repl.loadDocuments([{ name: "big.txt", data: big }]);
    const ms = Date.now() - started;
    expect(info.total_chars).toBeGreaterThanOrEqual(size);
    const r = await repl.runCell("print(context.count('\\n'))");
    expect(Number(r.stdout.trim())).toBe(Math.ceil(size / line.length));
    // The timing target is measured in bench/; this only guards against pathological slowness.
    expect(ms).toBeLessThan(30_000);
  });

  it("rebuilds the worker when native code ignores Stop, and reloads the documents", async () => {
    await repl.loadDocuments([{ name: "doc.txt", data: text("still here") }]);
    await repl.runCell("lost = 1");
    const before = repl.restartCount;
    // sum() over a range runs in C and never checks for interrupts.
    const r = await repl.runCell("sum(range(10**12))", { timeoutMs: 500 });
    expect(r.error).toBe("WorkerRestarted");
    expect(r.stderr).toContain("All variables were lost");
    expect(repl.restartCount).toBe(before + 1);
    const after = await repl.runCell("print(context)\nprint('lost' in dir())");
    expect(after.stdout.trim().split("\n")).toEqual(["still here", "False"]);
  });

  it("a cell that runs out of memory reports MemoryError and the REPL keeps working", async () => {
    // Four gigabytes of list slots: more than the 4 GB wasm heap can ever hold.
    const r = await repl.runCell("x = [0] * (10**9)");
    expect(r.error).toBe("MemoryError");
    // On 32-bit wasm a 10 GB string is refused even before allocation.
    expect((await repl.runCell("y = 'x' * 10**10")).error).toBe("OverflowError");
    expect((await repl.runCell("print(2 + 2)")).stdout.trim()).toBe("4");
  });
});
