// The session object that the page and the CLI both drive: documents come and go one at a time,
// a question waits for the documents to reach Python (never "context is empty"), a document that
// fails to load stops the question before the model is called, and a rebuilt worker gets the
// history back. When the documents' sizes are known (the CLI counts them), the first question's
// first model request goes out while Python is still starting, and still no cell runs before the
// documents are in Python. Real Pyodide in a worker thread, a scripted OpenAI-compatible server.
//
// The REPLs share one snapshot directory, as the CLI's share its cache: the first start makes the
// Python snapshot and every later one (rebuilt workers and child runs included) restores it, about
// 0.5 s instead of 5 s a start (issue 38: this file took 64 s of a loaded run, most of it booting
// Python eleven times). The one test whose point is the first request racing Python's start boots
// from scratch, so its margin stays the whole boot.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RlmSession } from "../../src/core/session.ts";
import type { RlmEvent } from "../../src/core/types.ts";
import type { ReplClient } from "../../src/repl/client.ts";
import { createNodeRepl } from "../../src/repl/node.ts";
import { repl as code } from "../fixtures/scripted-server.ts";
import { config, engines, text } from "./helpers.ts";
import { useSessionServer } from "./loop-stack.ts";

const stack = useSessionServer();

let snapshotDir: string;
beforeAll(async () => {
  snapshotDir = await mkdtemp(join(tmpdir(), "rlm-session-snapshot-"));
});
afterAll(async () => {
  await rm(snapshotDir, { recursive: true, force: true });
});

/**
 * A session over a fresh Node REPL; `repls` collects every REPL it creates (its own, children).
 * `boot: "scratch"` leaves out the file's snapshot, for a test that needs Python's full start.
 */
function newSession(
  repls: ReplClient[] = [],
  overrides: Parameters<typeof config>[0] = {},
  killGraceMs?: number,
  boot: "snapshot" | "scratch" = "snapshot",
): RlmSession {
  const { root, sub } = engines(stack.server);
  const session = new RlmSession({
    createRepl: () => {
      const r = createNodeRepl({
        syncMode: "auto",
        ...(killGraceMs ? { killGraceMs } : {}),
        ...(boot === "snapshot" ? { snapshotDir } : {}),
      });
      repls.push(r);
      return r;
    },
    engines: () => ({ root, sub }),
    config: () => config(overrides),
  });
  stack.opened.push(session);
  return session;
}

describe("documents in a session", () => {
  it("adds and removes one document at a time: one is a str, several a dict", async () => {
    const repls: ReplClient[] = [];
    const session = newSession(repls);
    await session.addDocuments([{ path: "a.txt", data: text("alpha") }]);
    expect(session.contextInfo).toMatchObject({ type: "str", total_chars: 5 });
    await session.addDocuments([{ path: "b.txt", data: text("beta!") }]);
    expect(session.contextInfo).toMatchObject({ type: "dict", items: 2, total_chars: 10 });
    await session.removeDocument("a.txt");
    expect(session.contextInfo).toMatchObject({ type: "str", total_chars: 5 });
    expect(session.documents.map((d) => d.path)).toEqual(["b.txt"]);
    expect((await repls[0]!.runCell("print(context)")).stdout.trim()).toBe("beta!");
  });

  it("a question asked while documents are still loading waits for them, and says so", async () => {
    const session = newSession();
    const big = "lorem ipsum dolor sit amet ".repeat(400_000) + "The code is QX-77.";
    void session.addDocuments([{ path: "big.txt", data: text(big) }]);
    stack.server.scripts.root = (req) => {
      expect(req.firstUser).toContain(`${big.length.toLocaleString("en-US")} characters`);
      return code("import re\nFINAL(re.search(r'QX-\\d+', context).group(0))");
    };
    const events: RlmEvent[] = [];
    const result = await session.ask("What is the code?", { onEvent: (e) => events.push(e) });
    expect(result.answer).toBe("QX-77");
    expect(events.filter((e) => e.type === "preparing").map((e) => e.type === "preparing" && e.step)).toEqual([
      "python",
      "documents",
      "model",
    ]);
  });

  it("a document that did not reach Python fails the question before the model is called", async () => {
    const session = newSession();
    // Bytes that cannot travel to the worker (as a dropped file deleted from disk cannot be read).
    const unreadable = { arrayBuffer: () => Promise.reject(new Error("the file was moved")) } as unknown as Blob;
    await expect(session.addDocuments([{ path: "gone.txt", data: unreadable }])).rejects.toThrow(/gone\.txt did not reach Python/);
    stack.server.scripts.root = "FINAL(should not be asked)";
    const result = await session.ask("Anything?");
    expect(result.status).toBe("failed");
    expect(result.message).toMatch(/gone\.txt did not reach Python/);
    expect(stack.server.requests.filter((r) => r.isRoot)).toHaveLength(0);
    // Removing it clears the failure; the session answers again.
    await session.removeDocument("gone.txt");
    await session.addDocuments([{ path: "ok.txt", data: text("fine") }]);
    stack.server.scripts.root = code("FINAL(context)");
    expect((await session.ask("Now?")).answer).toBe("fine");
  });
});

describe("questions in a session", () => {
  it("Stop while the documents are still loading ends the question as stopped, with no model call", async () => {
    const session = newSession();
    void session.addDocuments([{ path: "big.txt", data: text("x".repeat(60_000_000)) }]);
    const controller = new AbortController();
    const pending = session.ask("Q", { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const result = await pending;
    expect(result.status).toBe("stopped");
    expect(stack.server.requests.filter((r) => r.isRoot)).toHaveLength(0);
    await session.documentsReady(); // the load itself finishes; the session stays usable
  });

  it("a rebuilt worker gets the documents and the question history back", async () => {
    const repls: ReplClient[] = [];
    const session = newSession(repls, { cellTimeoutMs: 500 }, 800);
    await session.addDocuments([{ path: "doc.txt", data: text("still here") }]);
    stack.server.scripts.root = code("FINAL('first answer')");
    expect((await session.ask("First?")).answer).toBe("first answer");
    stack.server.scripts.root = (req) => {
      if (req.turn === 0) return code("sum(range(10**12))"); // C code that ignores Stop: the worker is killed
      expect(req.lastUser).toContain("All variables were lost");
      return code("FINAL(context + ' / ' + history[0]['answer'])");
    };
    const second = await session.ask("Second?");
    expect(second.answer).toBe("still here / first answer");
    expect(repls[0]!.restartCount).toBe(1);
  });

  it("close() ends the session's workers, children included", async () => {
    const repls: ReplClient[] = [];
    const session = newSession(repls, { maxDepth: 2 });
    await session.addDocuments([{ path: "p.txt", data: text("parent") }]);
    stack.server.scripts.root = (req) => {
      if (req.firstUser.includes("child task")) return code("FINAL('from child')");
      return req.turn === 0 ? code("r = rlm_query('child task')\nprint(r)") : code("FINAL(r)");
    };
    expect((await session.ask("Delegate")).answer).toBe("from child");
    expect(repls).toHaveLength(2);
    expect(repls.every((r) => r.hasWorker)).toBe(true);
    session.close();
    expect(repls.some((r) => r.hasWorker)).toBe(false);
    expect(session.documents).toEqual([]);
  });
});

describe("the first model request while Python gets ready (documents of known size)", () => {
  it("goes out before Python has the document, and the first cell sees all of it", async () => {
    // From scratch: the request must win a race against Python's start, so that start stays long.
    const session = newSession([], {}, undefined, "scratch");
    const doc = "lorem ipsum ".repeat(500_000) + "The code is QX-78.";
    void session.addDocuments([{ path: "big.txt", data: text(doc), chars: doc.length }]);
    const pythonHadIt: boolean[] = [];
    stack.server.scripts.root = (req) => {
      pythonHadIt.push(session.contextInfo !== null);
      expect(req.firstUser).toContain(`${doc.length.toLocaleString("en-US")} characters`);
      return code("import re\nFINAL(str(len(context)) + ' ' + re.search(r'QX-\\d+', context).group(0))");
    };
    const events: RlmEvent[] = [];
    const result = await session.ask("What is the code?", { onEvent: (e) => events.push(e) });
    expect(result.answer).toBe(`${doc.length} QX-78`);
    expect(pythonHadIt).toEqual([false]);
    expect(events.filter((e) => e.type === "preparing").map((e) => e.type === "preparing" && e.step)).toEqual(["model"]);
  });

  it("a size that turns out wrong means the first request is made again, describing `context` as Python has it", async () => {
    const session = newSession();
    void session.addDocuments([{ path: "a.txt", data: text("0123456789"), chars: 5 }]);
    stack.server.scripts.root = (req) =>
      req.firstUser.includes("10 characters") ? code("FINAL(len(context))") : code("FINAL('answered from a wrong description')");
    const result = await session.ask("How long?");
    expect(result.answer).toBe("10");
    expect(result.iterations).toHaveLength(1);
    const firsts = stack.server.requests.filter((r) => r.isRoot && r.turn === 0).map((r) => /(\d+) characters/.exec(r.firstUser)?.[1]);
    expect(firsts).toEqual(["5", "10"]);
  });

  it("a document that does not reach Python fails the question, and no cell runs", async () => {
    const session = newSession();
    const unreadable = { arrayBuffer: () => Promise.reject(new Error("the file was moved")) } as unknown as Blob;
    void session.addDocuments([{ path: "gone.txt", data: unreadable, chars: 4 }]).catch(() => undefined);
    stack.server.scripts.root = code("print('ran')\nFINAL(context)");
    const result = await session.ask("Anything?");
    expect(result.status).toBe("failed");
    expect(result.message).toMatch(/gone\.txt did not reach Python/);
    expect(result.iterations.flatMap((it) => it.code_blocks)).toEqual([]);
  });

  it("Stop while Python is still getting ready ends the question as stopped", async () => {
    const session = newSession();
    void session.addDocuments([{ path: "big.txt", data: text("x".repeat(60_000_000)), chars: 60_000_000 }]);
    stack.server.scripts.root = code("FINAL(len(context))");
    const controller = new AbortController();
    const pending = session.ask("Q", { signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    const result = await pending;
    expect(result.status).toBe("stopped");
    await session.documentsReady(); // the load itself finishes; the session stays usable
    expect((await session.ask("Again?")).answer).toBe("60000000");
  });
});
