// Retry and Edit as fresh tries, in src/core (issue 28 §4): a question asked again follows the
// history it is given (the answers before it), in its prompt and in Python's `history`, never the
// answer it retries; the session's own history is the caller's to set, where the page shows it.
import { describe, expect, it } from "vitest";
import { RlmSession } from "../../src/core/session.ts";
import { DEFAULT_CONFIG } from "../../src/core/types.ts";
import { InstantEngine } from "../fixtures/instant-engine.ts";
import { ScriptedRepl } from "../fixtures/scripted-repl.ts";
import { repl as code } from "../fixtures/scripted-server.ts";

describe("a fresh try follows only the history it is given", () => {
  it("Retry's history: the answers before the question, not the one retried; the session's own history is the caller's to set", async () => {
    const repl = new ScriptedRepl();
    const prompts: string[] = [];
    const root = new InstantEngine("root", (req) => {
      prompts.push(req.messages.map((m) => m.content).join("\n"));
      const q = /Question: (.*)/.exec(req.messages[1]!.content)?.[1] ?? "";
      return code(`FINAL("answer to ${q.slice(0, 12)}")`);
    });
    const session = new RlmSession({
      createRepl: () => repl,
      engines: () => ({ root, sub: root }),
      config: () => ({ ...DEFAULT_CONFIG, runMode: "rlm" }),
    });
    await session.addDocuments([{ path: "a.txt", data: new Blob(["The harbour minutes."]) }]);
    await session.ask("First question?");
    await session.ask("Second question?");
    expect(session.history.map((h) => h.question)).toEqual(["First question?", "Second question?"]);
    prompts.length = 0;
    const retried = await session.ask("Second question?", { history: session.history.slice(0, 1) });
    expect(retried.answer).toBe("answer to Second quest");
    expect(prompts[0]).toContain("answer to First quest");
    expect(prompts[0]).not.toMatch(/Q: Second question\?/);
    // Python's `history` too, and the session's own list is left for the caller to place the answer in.
    expect(repl.history.map((h) => h.question)).toEqual(["First question?"]);
    expect(session.history).toHaveLength(2);
    session.setHistory([session.history[0]!, { question: "Second question?", answer: "the retried answer" }]);
    await session.ask("Third?");
    expect(repl.history.map((h) => h.answer)).toEqual(["answer to First questi", "the retried answer"]);
    session.close();
  });
});
