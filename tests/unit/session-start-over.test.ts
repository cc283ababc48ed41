// RlmSession.startOver: the benchmark's way through the session, a new conversation over other
// documents in the same Python. Nothing of the earlier question reaches the next one: not its
// documents, not its history (the model's first message, Python's `history`), not its exports.
import { describe, expect, it } from "vitest";
import { RlmSession } from "../../src/core/session.ts";
import { parseJsonl } from "../../src/core/trajectory.ts";
import { DEFAULT_CONFIG, type RlmConfig } from "../../src/core/types.ts";
import type { ChatRequest } from "../../src/engines/types.ts";
import { InstantEngine } from "../fixtures/instant-engine.ts";
import { ScriptedRepl } from "../fixtures/scripted-repl.ts";

describe("a session started over", () => {
  it("holds only the new documents and remembers no earlier question", async () => {
    const firstMessages: string[] = [];
    const root = new InstantEngine("root-model", (request: ChatRequest) => {
      firstMessages.push(request.messages.find((m) => m.role === "user")!.content);
      return "```repl\nFINAL('done')\n```";
    });
    const repls: ScriptedRepl[] = [];
    const config: RlmConfig = { ...DEFAULT_CONFIG, runMode: "rlm" };
    const session = new RlmSession(
      {
        createRepl: () => (repls[repls.length] = new ScriptedRepl()),
        engines: () => ({ root, sub: root }),
        config: () => config,
        childRlms: false,
      },
      {},
    );
    await session.addDocuments([{ path: "old.txt", data: new Blob(["old text"]) }]);
    expect((await session.ask("First question about the old text?")).status).toBe("answered");
    expect(session.history).toHaveLength(1);

    await session.startOver([{ path: "new.txt", data: new Blob(["new text"]) }]);
    expect([...repls[0]!.docs.keys()]).toEqual(["new.txt"]);
    expect(session.documents.map((d) => d.path)).toEqual(["new.txt"]);
    expect(session.history).toHaveLength(0);
    expect((await session.ask("Second question?")).status).toBe("answered");
    expect(firstMessages.at(-1)).not.toContain("First question");
    expect(repls[0]!.history).toEqual([]);
    expect(parseJsonl(session.exportJsonl()).iterations.map((it) => it.question_index)).toEqual([0]);
    expect(repls).toHaveLength(1); // one Python for both conversations
    session.close();
  });
});
