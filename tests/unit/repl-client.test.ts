// The host side of the REPL with a worker that misbehaves: malformed replies are dropped and
// recorded in the trajectory, a broken worker is rebuilt. The worker here is an in-memory fake;
// the real one is covered by tests/node/repl.test.ts.
import { describe, expect, it, vi } from "vitest";
import { runRlm } from "../../src/core/loop.ts";
import { DEFAULT_CONFIG } from "../../src/core/types.ts";
import { ReplClient } from "../../src/repl/client.ts";
import { UnknownDocumentKindError } from "../../src/repl/errors.ts";
import type { ReplWorkerApi } from "../../src/repl/protocol.ts";
import { SANDBOX_CRASHED } from "../../src/repl/messages.ts";
import type { ReplStatus, ReplTransport } from "../../src/repl/types.ts";
import { InstantEngine } from "../fixtures/instant-engine.ts";

const context = JSON.stringify({ type: "str", total_chars: 3, items: 1 });
const good = (stdout: string, final: string | null = null) =>
  JSON.stringify({ stdout, stderr: "", final_answer: final, locals: {}, execution_time: 0, error: null, interrupted: false });

/** How the fake worker's own JS behaves on the private port (the real one: workers/shared/repl-runtime.ts). */
interface PulseBehaviour {
  /** Announce each cell's start (a wedged worker does not). */
  announce?: (code: string) => boolean;
  /** Answer heartbeats (a worker kept busy after a cell does not). */
  answer?: () => boolean;
  /** Send the result on the private port, as the real worker does (default); false: Comlink only. */
  deliver?: boolean;
  /** A reply a cell posted on the worker's global port ahead of the real one (Comlink resolves with it at once). */
  forgedReply?: string;
}

/** Replaces some of the fake worker's calls; `exit` makes this worker die as a real one does. */
type Overrides = (boot: number, exit: (reason: string) => void) => Partial<ReplWorkerApi>;

function fakeTransport(
  runCell: (code: string) => Promise<string>,
  boots: { count: number },
  behaviour: PulseBehaviour = {},
  overrides: Overrides = () => ({}),
): () => ReplTransport {
  return () => {
    boots.count += 1;
    const exitListeners: Array<(reason: string) => void> = [];
    const exit = (reason: string) => exitListeners.forEach((l) => l(reason));
    // The worker's private port, as the real worker's JS answers it: heartbeats echoed, each
    // cell's start announced.
    let pulse: MessagePort | undefined;
    const api = {
      boot: async (o: { syncMode: string; pingPort?: MessagePort }) => {
        pulse = o.pingPort;
        if (pulse) pulse.onmessage = (e: MessageEvent) => (behaviour.answer?.() ?? true) && pulse!.postMessage(e.data);
        return { syncMode: o.syncMode === "jspi" ? ("jspi" as const) : ("sab" as const), pythonVersion: "3", bootMs: 1 };
      },
      loadDocuments: async () => context,
      addDocument: async () => context,
      removeDocument: async () => context,
      setContextText: async () => context,
      runCell: async (code: string, _cap: number, id?: number) => {
        if (behaviour.announce?.(code) ?? true) pulse?.postMessage({ started: id });
        if (behaviour.forgedReply !== undefined) {
          const real = runCell(code).then((result) => pulse?.postMessage({ id, result }));
          void new Promise((r) => setTimeout(r, 50)).then(() => real);
          return behaviour.forgedReply;
        }
        const result = await runCell(code);
        if (behaviour.deliver ?? true) pulse?.postMessage({ id, result });
        return result;
      },
      beginQuestion: async () => undefined,
      resetNamespace: async () => undefined,
      sourcePassages: async () => "[]",
      probe: async () => JSON.stringify({ ok: true, value: [[null, 3]] }),
      stats: async () => ({ wasmHeapBytes: 0 }),
    } satisfies ReplWorkerApi;
    return {
      api: { ...api, ...overrides(boots.count, exit) } as unknown as ReplTransport["api"],
      transfer: (v) => v,
      terminate: () => undefined,
      onExit: (listener) => void exitListeners.push(listener),
    };
  };
}

describe("ReplClient with a misbehaving worker", () => {
  it("drops a malformed cell result, says so, and keeps it for the trajectory", async () => {
    const boots = { count: 0 };
    const replies = ['{"stdout": 5}', good("fine", "done")];
    const repl = new ReplClient(fakeTransport(async () => replies.shift()!, boots));
    await repl.setContextText("abc");
    const engine = new InstantEngine("m", (req) =>
      req.messages.filter((m) => m.role === "assistant").length === 0 ? "```repl\nprint(1)\n```" : "```repl\nFINAL('done')\n```",
    );
    const notices: string[] = [];
    const result = await runRlm({
      question: "q",
      repl,
      rootEngine: engine,
      config: { ...DEFAULT_CONFIG, maxIterations: 4 },
      onEvent: (e) => {
        if (e.type === "notice") notices.push(e.message);
      },
    });
    expect(result.answer).toBe("done");
    expect(result.iterations[0]?.code_blocks[0]?.result.stderr).toContain("ProtocolError");
    expect(result.iterations[0]?.dropped_messages?.[0]).toMatch(/malformed cell result/);
    expect(notices.some((n) => /malformed cell result/.test(n))).toBe(true);
    expect(repl.takeProtocolErrors()).toEqual([]);
  });

  it("rebuilds a worker whose cell call rejects, and reloads the context", async () => {
    const boots = { count: 0 };
    let calls = 0;
    const repl = new ReplClient(
      fakeTransport(async () => {
        calls += 1;
        if (calls === 1) throw new Error("Pyodide already fatally failed");
        return good("after restart");
      }, boots),
    );
    await repl.setContextText("abc");
    const broken = await repl.runCell("x");
    expect(broken.error).toBe("WorkerRestarted");
    expect(broken.stderr).toContain("All variables were lost");
    expect(boots.count).toBe(2);
    expect(repl.restartCount).toBe(1);
    expect((await repl.runCell("y")).stdout).toBe("after restart");
  });

  it("answers only well-formed sub-call requests on the host port", async () => {
    const boots = { count: 0 };
    let port: MessagePort | undefined;
    const factory = () => {
      const t = fakeTransport(async () => good(""), boots)();
      const api = t.api as unknown as { boot: ReplWorkerApi["boot"] };
      const boot = api.boot;
      api.boot = async (o) => {
        port = o.hostPort;
        return boot(o);
      };
      return t;
    };
    const repl = new ReplClient(factory, { syncMode: "jspi" });
    await repl.start();
    let asked = 0;
    repl.setSubcallHandler(async (req) => {
      asked += 1;
      return req.prompts.map(() => "ok");
    });
    const replies: unknown[] = [];
    port!.onmessage = (e) => replies.push(e.data);
    const send = (m: unknown) => port!.postMessage(m);
    send({ type: "request", id: 1, request: '{"kind":"exfiltrate","prompts":["x"]}' });
    send({ type: "request", id: 2, request: "not json" });
    send({ type: "get", path: ["call", "__proto__"] }); // what a Comlink-style walk would look like
    send({ type: "request", id: 3, request: '{"kind":"llm","prompts":["x"],"model":null}' });
    await new Promise((r) => setTimeout(r, 50));
    expect(asked).toBe(1);
    expect(replies).toContainEqual({ type: "reply", id: 1, reply: JSON.stringify({ results: [] }) });
    expect(replies).toContainEqual({ type: "reply", id: 3, reply: JSON.stringify({ results: ["ok"] }) });
    expect(replies.some((r) => (r as { id?: number }).id === undefined)).toBe(false);
    expect(repl.takeProtocolErrors()).toHaveLength(3);
    repl.close();
  });

  it("a worker that cannot even start a cell (work left behind holds it) is rebuilt at once", async () => {
    const boots = { count: 0 };
    const repl = new ReplClient(
      fakeTransport(() => new Promise(() => undefined), boots, { announce: () => boots.count > 1 }),
      { heartbeatMs: 200 },
    );
    await repl.setContextText("abc");
    const started = Date.now();
    const r = await repl.runCell("print(1)", { timeoutMs: 60_000 });
    expect(Date.now() - started).toBeLessThan(5_000); // the heartbeat, not the 60 s cell limit
    expect(r.error).toBe("WorkerRestarted");
    expect(r.stderr).toContain("before this cell could run");
    expect(repl.restartCount).toBe(1);
  });

  it("a worker that goes silent after a cell keeps the cell's output and is rebuilt", async () => {
    const boots = { count: 0 };
    let silent = false;
    const repl = new ReplClient(
      fakeTransport(
        async (code) => {
          if (code === "wedge") silent = true;
          return good(`ran ${code}`);
        },
        boots,
        { answer: () => !silent || boots.count > 1 },
      ),
      { heartbeatMs: 200 },
    );
    await repl.setContextText("abc");
    const r = await repl.runCell("wedge");
    expect(r.stdout).toBe("ran wedge");
    expect(r.error).toBe("WorkerRestarted");
    expect(r.stderr).toContain("after the cell it stopped answering");
    expect((await repl.runCell("next")).stdout).toBe("ran next");
  });

  it("takes the result from the private port when the cell's Comlink reply never comes", async () => {
    const boots = { count: 0 };
    const repl = new ReplClient(
      fakeTransport(async () => good("via the private port"), boots, { deliver: true }),
      { heartbeatMs: 200 },
    );
    // The Comlink reply is held back forever; only the private port delivers.
    const api = (repl as unknown as { worker: { transport: ReplTransport | null } }).worker;
    await repl.setContextText("abc");
    const original = api.transport!.api.runCell;
    (api.transport!.api as unknown as { runCell: unknown }).runCell = (...args: unknown[]) => {
      void (original as (...a: unknown[]) => Promise<string>)(...args);
      return new Promise(() => undefined);
    };
    const r = await repl.runCell("x", { timeoutMs: 10_000 });
    expect(r.stdout).toBe("via the private port");
  });
});

describe("ReplClient takes a cell's result from the worker's own code only (issue 32)", () => {
  it("a reply posted on the worker's global port ahead of the real one is not the cell's result", async () => {
    const boots = { count: 0 };
    const repl = new ReplClient(
      fakeTransport(async () => good("the real output", "the real answer"), boots, { forgedReply: good("FORGED", "FORGED-ANSWER") }),
      { heartbeatMs: 200 },
    );
    await repl.setContextText("abc");
    const r = await repl.runCell("x", { timeoutMs: 10_000 });
    expect(r.stdout).toBe("the real output");
    expect(r.final_answer).toBe("the real answer");
  });
});

// Comlink leaves a call pending for ever when its worker goes away; whoever waited on it (a
// document load, and every question after it) waited for ever too.
describe("ReplClient calls while the worker is busy, killed or dead", () => {
  const docInfo = (chars: number) => JSON.stringify({ type: "str", total_chars: chars, items: 1 });
  const blob = { name: "big.txt", data: new Blob(["x"]) };
  /** A call the worker never answers, because it dies while working on it. */
  const dieDuringCall = <T>(exit: (reason: string) => void, reason: string): Promise<T> => {
    setTimeout(() => exit(reason), 20);
    return new Promise<T>(() => undefined);
  };

  it("a worker busy decoding a document is waited for, not taken for wedged and killed", async () => {
    const boots = { count: 0 };
    let busy = false;
    const repl = new ReplClient(
      fakeTransport(
        async () => good(""),
        boots,
        { answer: () => !busy },
        () => ({
          addDocument: async () => {
            busy = true; // like Python decoding: the worker's event loop answers nothing meanwhile
            await new Promise((r) => setTimeout(r, 400));
            busy = false;
            return docInfo(2_000_000);
          },
        }),
      ),
      { heartbeatMs: 100 },
    );
    await repl.start();
    const loading = repl.addDocument(blob);
    await new Promise((r) => setTimeout(r, 20));
    expect(await repl.ensureResponsive()).toBeNull();
    expect((await loading).total_chars).toBe(2_000_000);
    expect(boots.count).toBe(1);
    repl.close();
  });

  it("a document call on a worker that dies is not lost: the new worker loads it, and the call returns", async () => {
    const boots = { count: 0 };
    const repl = new ReplClient(
      fakeTransport(
        async () => good(""),
        boots,
        {},
        (boot, exit) => ({
          // The first worker dies while decoding; the second has the document loaded as it boots.
          addDocument: () => dieDuringCall(exit, "worker exited with code 1"),
          loadDocuments: async (docs) => (boot > 1 ? docInfo(docs.length * 7) : context),
        }),
      ),
    );
    await repl.start();
    const info = await repl.addDocument(blob);
    expect(info.total_chars).toBe(7);
    expect(boots.count).toBe(2);
    repl.close();
  }, 5_000);

  it("a document's kind goes to the worker with it, also to a rebuilt worker; a kind no format has is refused before any worker sees it", async () => {
    const boots = { count: 0 };
    const sent: unknown[] = [];
    const repl = new ReplClient(
      fakeTransport(
        async () => good(""),
        boots,
        {},
        (boot, exit) => ({
          addDocument: async (doc) => (sent.push(doc), boot === 1 ? dieDuringCall(exit, "worker exited with code 1") : context),
          loadDocuments: async (docs) => (sent.push(...docs), docInfo(7)),
        }),
      ),
    );
    await repl.start();
    await repl.addDocument({ name: "scan", data: new Blob(["--- page 1 ---"]), kind: "pdf" });
    expect(sent).toEqual([expect.objectContaining({ name: "scan", kind: "pdf" }), expect.objectContaining({ name: "scan", kind: "pdf" })]);
    sent.length = 0;
    await expect(repl.addDocument({ name: "report", data: new Blob(["x"]), kind: "PDF" })).rejects.toThrow(
      /The document report was given the kind "PDF", which no document format has \(text, zip-entry, pdf, docx\)/,
    );
    await expect(repl.loadDocuments([{ name: "a", data: new Blob(["x"]), kind: "slides" }])).rejects.toThrow(UnknownDocumentKindError);
    expect(sent).toEqual([]);
    repl.close();
  }, 5_000);

  it("a worker that dies while it starts fails the start with a message, instead of a start that never ends", async () => {
    const boots = { count: 0 };
    const repl = new ReplClient(
      fakeTransport(
        async () => good(""),
        boots,
        {},
        (_boot, exit) => ({
          boot: () => dieDuringCall(exit, "the Python worker script failed to load"),
        }),
      ),
    );
    await expect(repl.start()).rejects.toThrow(/could not start: .*script failed to load/);
  }, 5_000);

  it("a first start that fails is retried once on a fresh worker, and the person is told it is being retried", async () => {
    const boots = { count: 0 };
    const statuses: ReplStatus[] = [];
    const repl = new ReplClient(
      fakeTransport(
        async () => good("after retry"),
        boots,
        {},
        (boot) => (boot === 1 ? { boot: () => Promise.reject(new Error("could not load pyodide.asm.wasm (Failed to fetch)")) } : {}),
      ),
      { onStatus: (s) => statuses.push(s) },
    );
    const [a, b] = [repl.start(), repl.start()]; // two callers, one start
    await expect(a).resolves.toMatchObject({ syncMode: "sab" });
    await b;
    expect(boots.count).toBe(2);
    expect(statuses).toContainEqual({ state: "starting", retrying: "could not load pyodide.asm.wasm (Failed to fetch)" });
    expect(statuses.at(-1)).toMatchObject({ state: "ready" });
    expect(statuses.some((s) => s.state === "failed")).toBe(false);
    expect((await repl.runCell("x")).stdout).toBe("after retry");
    expect(boots.count).toBe(2);
    repl.close();
  }, 5_000);

  it("a start that fails twice says why, in the status and the error, naming both tries", async () => {
    const boots = { count: 0 };
    const statuses: ReplStatus[] = [];
    const repl = new ReplClient(
      fakeTransport(
        async () => good(""),
        boots,
        {},
        (boot, exit) => ({
          boot: () =>
            boot === 1
              ? dieDuringCall(exit, "the Python worker script failed to load")
              : Promise.reject(new Error("WebAssembly.instantiate(): Out of memory")),
        }),
      ),
      { onStatus: (s) => statuses.push(s) },
    );
    await expect(repl.start()).rejects.toThrow(
      /could not start: WebAssembly.instantiate\(\): Out of memory \(it was tried twice; the first try: the Python worker script failed to load\)/,
    );
    expect(boots.count).toBe(2);
    const failed = statuses.at(-1);
    expect(failed).toMatchObject({ state: "failed", reason: "WebAssembly.instantiate(): Out of memory" });
    // A later call (Restart Python, the next question) starts afresh, with its own retry.
    await expect(repl.start()).rejects.toThrow(/could not start/);
    expect(boots.count).toBe(4);
  }, 5_000);

  it("a slow start reports how long it has waited, and stops once it is ready", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    try {
      const boots = { count: 0 };
      const statuses: ReplStatus[] = [];
      let finishBoot!: () => void;
      const booted = new Promise<void>((resolve) => (finishBoot = resolve));
      const repl = new ReplClient(
        fakeTransport(
          async () => good(""),
          boots,
          {},
          () => ({
            boot: async () => {
              await booted;
              return { syncMode: "sab" as const, pythonVersion: "3", bootMs: 1, snapshot: { path: "plain" as const, phases: [] } };
            },
          }),
        ),
        { onStatus: (s) => statuses.push(s) },
      );
      const started = repl.start();
      await vi.advanceTimersByTimeAsync(30_000);
      expect(statuses).toContainEqual({ state: "starting", waitedSeconds: 10 });
      expect(statuses).toContainEqual({ state: "starting", waitedSeconds: 30 });
      finishBoot();
      await started;
      const count = statuses.length;
      await vi.advanceTimersByTimeAsync(30_000);
      expect(statuses.length).toBe(count);
      expect(statuses.at(-1)).toMatchObject({ state: "ready" });
      repl.close();
    } finally {
      vi.useRealTimers();
    }
  }, 5_000);

  it("a call on a session closed meanwhile fails with a message, and starts no new worker", async () => {
    const boots = { count: 0 };
    const repl = new ReplClient(
      fakeTransport(
        async () => good(""),
        boots,
        {},
        () => ({ sourcePassages: () => new Promise<string>(() => undefined) }),
      ),
    );
    await repl.start();
    const quoting = repl.sourcePassages([{ doc: "a", start: 0, end: 1 }]);
    const later = repl.stats();
    await new Promise((r) => setTimeout(r, 10)); // the call has reached the worker
    repl.close();
    await expect(repl.resetNamespace()).rejects.toThrow(/its session was closed/);
    await expect(quoting).rejects.toThrow(/stopped before it answered \(its session was closed\)/);
    await expect(later).resolves.toEqual({ wasmHeapBytes: 0 });
    expect(boots.count).toBe(1);
  }, 5_000);
});

describe("ReplClient with a worker in another process (Chromium's sandboxed frame)", () => {
  const interrupted = JSON.stringify({
    stdout: "",
    stderr: "KeyboardInterrupt: the cell was interrupted.\n",
    final_answer: null,
    locals: {},
    execution_time: 0,
    error: "KeyboardInterrupt",
    interrupted: true,
  });

  /** The fake worker, seen through a transport that shares no memory with the page. */
  function framed(
    runCell: (code: string) => Promise<string>,
    seen: { bootOptions?: Record<string, unknown>; transferred?: unknown[]; booted: number; interrupts: number },
    extraPort: MessagePort,
    overrides?: Overrides,
  ) {
    const boots = { count: 0 };
    const base = fakeTransport(runCell, boots, {}, overrides);
    return (onInterrupt: () => void = () => undefined): (() => ReplTransport) =>
      () => {
        const t = base();
        const boot = t.api.boot as unknown as (o: Record<string, unknown>) => Promise<unknown>;
        return {
          ...t,
          api: { ...t.api, boot: (o: Record<string, unknown>) => ((seen.bootOptions = o), boot(o)) } as unknown as ReplTransport["api"],
          sharesMemory: false,
          transferables: [extraPort],
          transfer: (value, list) => ((seen.transferred = list), value),
          interrupt: () => {
            seen.interrupts += 1;
            onInterrupt();
          },
          onBooted: () => void (seen.booted += 1),
        };
      };
  }

  it("Stop reaches Python through the transport; no shared buffer is sent, and the transport's ports go with the boot", async () => {
    const seen: { bootOptions?: Record<string, unknown>; transferred?: unknown[]; booted: number; interrupts: number } = {
      booted: 0,
      interrupts: 0,
    };
    const port = new MessageChannel().port2;
    let finish!: (result: string) => void;
    const factory = framed(() => new Promise<string>((resolve) => (finish = resolve)), seen, port)(() => finish(interrupted));
    const repl = new ReplClient(factory);
    await repl.start();
    // (Plain booleans: a failed match on an object holding MessagePorts overflows the diff printer.)
    expect("interruptBuffer" in seen.bootOptions!).toBe(false);
    expect("sabBuffer" in seen.bootOptions!).toBe(false);
    expect(seen.transferred?.includes(port)).toBe(true);
    expect(seen.booted).toBe(1);
    const cell = repl.runCell("while True: pass", { timeoutMs: 60_000 });
    await new Promise((r) => setTimeout(r, 10));
    repl.interrupt();
    const result = await cell;
    expect(seen.interrupts).toBeGreaterThan(0);
    expect(result.error).toBe("KeyboardInterrupt");
    expect(result.stderr).toMatch(/the person pressed Stop. Variables from earlier cells are kept/);
    repl.close();
  }, 5_000);

  it("a frame whose process crashed ends the running cell with a message naming it, and a new worker takes over", async () => {
    const seen = { booted: 0, interrupts: 0 };
    const factory = framed(
      async () => good("1\n"),
      seen,
      new MessageChannel().port2,
      (boot, exit) => (boot === 1 ? { runCell: () => new Promise<string>(() => setTimeout(() => exit(SANDBOX_CRASHED), 5)) } : {}),
    )();
    const repl = new ReplClient(factory);
    await repl.start();
    const result = await repl.runCell("a = []\nwhile True: a.append(js.Array.new(10**7))", { timeoutMs: 60_000 });
    expect(result.error).toBe("WorkerRestarted");
    expect(result.stderr).toMatch(/the Python sandbox's process crashed, most likely out of memory \(the page itself was not affected\)/);
    expect(result.stderr).not.toMatch(/time limit|pressed Stop/);
    const next = await repl.runCell("print(1)");
    expect(next.error).toBeNull();
    expect(seen.booted).toBe(2);
    repl.close();
  }, 5_000);
});

describe("ReplClient.probe: the harness's questions as a worker call of their own (issue 25, issue 27)", () => {
  const probing = (reply: (json: string) => string, cells: string[]) =>
    new ReplClient(
      fakeTransport(
        async (code) => {
          cells.push(code);
          return good("");
        },
        { count: 0 },
        {},
        () => ({ probe: async (json: string) => reply(json) }),
      ),
    );

  it("sends the typed request, returns the checked value, and runs no cell", async () => {
    const cells: string[] = [];
    const asked: unknown[] = [];
    const repl = probing((json) => {
      asked.push(JSON.parse(json));
      return JSON.stringify({ ok: true, value: "x".repeat(500_000) });
    }, cells);
    const text = await repl.probe({ kind: "read", doc: null, start: 0, end: 500_000 });
    expect(text.length).toBe(500_000);
    expect(asked).toEqual([{ kind: "read", doc: null, start: 0, end: 500_000 }]);
    expect(cells).toEqual([]);
    repl.close();
  });

  it("a Python error becomes ReplProbeError with what the harness was doing", async () => {
    const repl = probing(() => JSON.stringify({ ok: false, error: "KeyError: 'no document b.txt in context'" }), []);
    await expect(repl.probe({ kind: "read", doc: "b.txt", start: 0, end: 4 })).rejects.toThrow(
      /could not read part of `context` in the Python REPL \(KeyError: 'no document b\.txt in context'\)/,
    );
    repl.close();
  });

  it.each([
    ["a read longer than asked", { kind: "read", doc: null, start: 0, end: 2 }, "abcdef"],
    ["a layout with a negative length", { kind: "layout" }, [[null, -1]]],
    [
      "more pieces than asked for",
      { kind: "rank", question: "q", chunkChars: 10, maxChunks: 1 },
      [
        [null, 0, 5],
        [null, 5, 9],
      ],
    ],
    ["a range that ends before it starts", { kind: "rank", question: "q", chunkChars: 10, maxChunks: 5 }, [[null, 9, 5]]],
    ["a syntax verdict without its error", { kind: "syntax", code: "x" }, { ok: false }],
  ] as const)("refuses %s", async (_name, request, value) => {
    const repl = probing(() => JSON.stringify({ ok: true, value }), []);
    await expect(repl.probe(request)).rejects.toThrow(/malformed reply to the "\w+" probe/);
    repl.close();
  });
});
