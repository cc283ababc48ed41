// Continue: a run that ran out of turns (or was stopped) goes on from its last turn, with its
// Python variables when the worker is the same, and told they are gone when it is not. Real
// Pyodide in a worker thread, a scripted OpenAI-compatible server.
import { describe, expect, it } from "vitest";
import { RlmSession } from "../../src/core/session.ts";
import type { IterationRecord, RlmEvent } from "../../src/core/types.ts";
import { createNodeRepl } from "../../src/repl/node.ts";
import { repl as code, type ScriptedRequest } from "../fixtures/scripted-server.ts";
import { TEST_SNAPSHOT_DIR, config, engines, text } from "./helpers.ts";
import { useSessionServer } from "./loop-stack.ts";

const stack = useSessionServer();

function newSession(): RlmSession {
  const { root, sub } = engines(stack.server);
  const session = new RlmSession({
    createRepl: () => createNodeRepl({ syncMode: "auto", snapshotDir: TEST_SNAPSHOT_DIR }),
    engines: () => ({ root, sub }),
    config: () => config({ maxIterations: 1, runMode: "rlm" }),
  });
  stack.opened.push(session);
  return session;
}

/** A new session holding one document. */
async function sessionWith(path: string, content: string): Promise<RlmSession> {
  const session = newSession();
  await session.addDocuments([{ path, data: text(content) }]);
  return session;
}

/** The turns of a first run of `question` that continuing replays: the model's own, not the fallback's step. */
async function modelTurnsOf(session: RlmSession, question: string): Promise<IterationRecord[]> {
  const first = await session.ask(question);
  return first.iterations.filter((it) => !it.fallback);
}

/** Turn 0 stores a secret; turn 1 (only reached by continuing) answers with it. */
function script(seen: ScriptedRequest[]) {
  stack.server.scripts.root = (req) => {
    seen.push(req);
    if (req.lastUser.includes("best answer") || req.lastUser.includes("final answer")) return "I need another turn.";
    if (req.turn === 0) return code("secret = 'KIWI-' + str(6 * 7)\nprint('stored')");
    return code("FINAL(secret if 'secret' in globals() else 'gone')");
  };
  stack.server.scripts.sub = "unused";
}

describe("continuing a run", () => {
  it("replays the earlier turns and keeps the variables on the same worker", async () => {
    const seen: ScriptedRequest[] = [];
    script(seen);
    const session = await sessionWith("a.txt", "some document text");
    const modelTurns = await modelTurnsOf(session, "What is the secret?");
    seen.length = 0;
    const events: RlmEvent[] = [];
    const next = await session.ask("What is the secret?", { resume: { iterations: modelTurns }, onEvent: (e) => events.push(e) });
    expect(next.answer).toBe("KIWI-42");
    expect(next.status).toBe("answered");
    // The model saw its earlier turn and its output, and was told its variables survived.
    const req = seen[0]!;
    expect(req.turn).toBe(modelTurns.length);
    expect(req.messages.map((m) => m.content).join("\n")).toContain("stored");
    expect(req.lastUser).toContain("variables from these turns are still defined");
    // Its turns are numbered after the earlier run's.
    expect(events.find((e) => e.type === "turn-started" && e.depth === 0)).toMatchObject({ turn: modelTurns.length });
  });

  it("on another worker it continues anyway and says the variables are gone", async () => {
    const seen: ScriptedRequest[] = [];
    script(seen);
    const modelTurns = await modelTurnsOf(await sessionWith("a.txt", "some document text"), "What is the secret?");
    // A reloaded page: a new session (new worker) with the stored turns.
    const after = await sessionWith("a.txt", "some document text");
    seen.length = 0;
    const events: RlmEvent[] = [];
    const next = await after.ask("What is the secret?", {
      resume: { iterations: structuredClone(modelTurns) },
      onEvent: (e) => events.push(e),
    });
    expect(next.answer).toBe("gone");
    expect(seen[0]!.lastUser).toContain("your variables from these turns are gone");
    expect(events.some((e) => e.type === "notice" && /variables are gone/.test(e.message))).toBe(true);
  });
});

describe("a continued run's sources", () => {
  it("include what the earlier turns read", async () => {
    stack.server.scripts.root = (req) => {
      if (req.lastUser.includes("now continues")) return code("FINAL(found)");
      if (req.turn === 0) return code("i = context.find('code')\nfound = context[i:i+16]\nprint(context[max(0, i - 20):i + 40])");
      return "I need another turn.";
    };
    const session = await sessionWith("memo.txt", "Filler. The code is TANGO-19. More filler.");
    const next = await session.ask("Where is the code?", { resume: { iterations: await modelTurnsOf(session, "Where is the code?") } });
    expect(next.answer).toContain("TANGO-19");
    expect(next.sources?.[0]?.doc).toBe("memo.txt");
  });
});
