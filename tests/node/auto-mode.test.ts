// Auto mode (issue 13): the session answers a document that fits the root's window in one direct
// call, says so, and keeps using the RLM for the rest. Real Pyodide, the scripted server.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { VANILLA_SYSTEM_PROMPT } from "../../src/core/direct.ts";
import { RlmSession } from "../../src/core/session.ts";
import type { RlmEvent } from "../../src/core/types.ts";
import { createNodeRepl } from "../../src/repl/node.ts";
import { repl as code, startScriptedServer, type ScriptedRequest, type ScriptedServer } from "../fixtures/scripted-server.ts";
import { TEST_SNAPSHOT_DIR, config, engines, text } from "./helpers.ts";

const WINDOW = 4096;
let server: ScriptedServer;
const open: RlmSession[] = [];
beforeAll(async () => {
  server = await startScriptedServer({ contextWindow: WINDOW });
});
afterAll(async () => server?.close());
afterEach(() => {
  for (const s of open.splice(0)) s.close();
  server.requests.length = 0;
});

function session(overrides: Parameters<typeof config>[0] = {}, window = WINDOW): RlmSession {
  const { root, sub } = engines(server, window);
  const s = new RlmSession({
    createRepl: () => createNodeRepl({ syncMode: "auto", snapshotDir: TEST_SNAPSHOT_DIR }),
    engines: () => ({ root, sub }),
    config: () => config({ runMode: "auto", ...overrides }),
  });
  open.push(s);
  return s;
}

const isDirect = (req: ScriptedRequest) => req.messages[0]?.content === VANILLA_SYSTEM_PROMPT;
const rootRequests = () => server.requests.filter((r) => r.isRoot);

describe("auto mode", () => {
  it("answers a small document in one direct call, says so, and a follow-up sees the first answer", async () => {
    const s = session();
    await s.addDocuments([{ path: "memo.txt", data: text("The meeting moved to Thursday at 10.") }]);
    server.scripts.root = (req) => {
      if (!isDirect(req)) return code("FINAL('the RLM ran')");
      if (req.lastUser.includes("Earlier questions")) return req.lastUser.includes("→ A: Thursday") ? "At 10." : "no history";
      return req.lastUser.includes("moved to Thursday") ? "Thursday" : "not shown";
    };
    const events: RlmEvent[] = [];
    const result = await s.ask("Which day is the meeting?", { onEvent: (e) => events.push(e) });
    expect(result).toMatchObject({ status: "answered", answer: "Thursday", producedBy: "model", mode: { used: "direct" } });
    expect(result.mode?.reason).toMatch(/fit the window/);
    expect(rootRequests()).toHaveLength(1);
    expect(result.iterations).toHaveLength(1);
    expect(result.iterations[0]?.direct).toEqual({ shown_chars: 36, total_chars: 36 });
    expect(events.find((e) => e.type === "run-mode")).toMatchObject({ mode: "direct" });
    expect(events.some((e) => e.type === "token")).toBe(true);
    const second = await s.ask("At what time?");
    expect(second.answer).toBe("At 10.");
  });

  it("joins several documents under their paths", async () => {
    const s = session();
    await s.addDocuments([
      { path: "a.txt", data: text("alpha says 1") },
      { path: "b.txt", data: text("beta says 2") },
    ]);
    server.scripts.root = (req) => (isDirect(req) ? req.lastUser : code("FINAL('rlm')"));
    const result = await s.ask("Sum?");
    expect(result.mode?.used).toBe("direct");
    expect(result.answer).toContain("=== a.txt ===\nalpha says 1\n\n=== b.txt ===\nbeta says 2");
  });

  it("uses the RLM when the document does not fit, and says why", async () => {
    const s = session();
    await s.addDocuments([{ path: "big.txt", data: text("lorem ipsum ".repeat(5000)) }]);
    server.scripts.root = (req) => (isDirect(req) ? "direct" : code("FINAL(str(len(context)))"));
    const result = await s.ask("How long?");
    expect(result).toMatchObject({ answer: "60000", mode: { used: "rlm" } });
    expect(result.mode?.reason).toMatch(/does not fit the window/);
    expect(rootRequests().some(isDirect)).toBe(false);
  });

  it("the person can insist: RLM on a small document, direct on a big one (cut to fit, and said so)", async () => {
    const rlm = session({ runMode: "rlm" });
    await rlm.addDocuments([{ path: "s.txt", data: text("small") }]);
    server.scripts.root = (req) => (isDirect(req) ? req.lastUser : code("FINAL(context)"));
    expect(await rlm.ask("Q")).toMatchObject({ answer: "small", mode: { used: "rlm", reason: "RLM was asked for" } });

    const direct = session({ runMode: "direct" });
    await direct.addDocuments([{ path: "big.txt", data: text(`START ${"x".repeat(100_000)} END`) }]);
    const result = await direct.ask("Q");
    expect(result.mode).toEqual({ used: "direct", reason: "direct answer was asked for; the document will be cut to fit" });
    expect(result.answer).toMatch(/^Note: the document is 100,010 characters long/);
    expect(result.answer).toContain("START");
    expect(result.answer).toContain("END");
  });
});

/** 600,000 characters, every line numbered, so a missing or repeated piece shows. */
const BIG = Array.from({ length: 12_000 }, (_, i) => `line ${String(i).padStart(6, "0")}: the river é ran past the mill.`)
  .join("\n")
  .padEnd(600_000, ".")
  .slice(0, 600_000);

/** The document part of a direct prompt, and the note above it ("" when nothing was cut). */
function directPrompt(req: ScriptedRequest): { note: string; shown: string } {
  const m = /^(?:(Note: [^\n]*)\n\n)?Document:\n<<<\n([\s\S]*)\n>>>\n\nQuestion: /.exec(req.lastUser);
  if (!m) throw new Error(`not a direct prompt: ${req.lastUser.slice(0, 200)}`);
  return { note: m[1] ?? "", shown: m[2]! };
}

describe("direct mode reads the whole document (issue 25 §2)", () => {
  it.each([
    ["4K", 4096],
    ["32K", 32_768],
    ["256K", 262_144],
  ])("a %s window: the prompt holds what fits, and says truthfully what was cut", async (_name, window) => {
    const s = session({ runMode: "direct" }, window);
    await s.addDocuments([{ path: "big.txt", data: text(BIG) }]);
    server.scripts.root = (req) => (isDirect(req) ? "seen" : code("FINAL('rlm')"));
    const result = await s.ask("What runs past the mill?");
    expect(result).toMatchObject({ answer: "seen", mode: { used: "direct" } });
    const { note, shown } = directPrompt(rootRequests()[0]!);
    expect(shown).not.toContain("omitted");
    if (window === 262_144) {
      expect(note).toBe("");
      expect(shown).toBe(BIG);
      expect(result.iterations[0]!.direct).toEqual({ shown_chars: 600_000, total_chars: 600_000 });
      return;
    }
    const [, first, last, cut] = /Shown: the first ([\d,]+) and the last ([\d,]+) characters; ([\d,]+) characters in the middle were cut/
      .exec(note)!
      .map((n) => Number(n.replace(/,/g, "")));
    expect(first! + last! + cut!).toBe(600_000);
    expect(shown).toBe(
      `${BIG.slice(0, first)}\n[... ${note.match(/([\d,]+) characters in the middle/)![1]} characters cut here ...]\n${BIG.slice(-last!)}`,
    );
    expect(result.iterations[0]!.direct).toEqual({ shown_chars: first! + last!, total_chars: 600_000 });
  });
});
