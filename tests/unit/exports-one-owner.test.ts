// One owner for what a trajectory export holds: the page exports the exchanges it stored, the
// command line exports its RlmSession's runs, and both go through trajectoryJsonl
// (src/core/trajectory.ts). The same two questions, seen as the page sees them (events folded
// into exchanges, then the result) and as the session keeps them, export the same lines.
import { describe, expect, it } from "vitest";
import { applyEvent, applyResult, newExchange, type Exchange } from "../../src/app/run-view.ts";
import { RlmSession } from "../../src/core/session.ts";
import { fineTuneJsonl, parseJsonl, trajectoryJsonl } from "../../src/core/trajectory.ts";
import { DEFAULT_CONFIG, type RlmConfig } from "../../src/core/types.ts";
import type { ChatRequest } from "../../src/engines/types.ts";
import { InstantEngine } from "../fixtures/instant-engine.ts";
import { ScriptedRepl } from "../fixtures/scripted-repl.ts";

const fence = (code: string) => "```repl\n" + code + "\n```";

/** Reads the document on the first turn of a question, then answers with the word the question names. */
function reply(request: ChatRequest): string {
  const asked = request.messages.map((m) => m.content).join("\n");
  const turn = request.messages.filter((m) => m.role === "assistant").length;
  const word = /Question: Which fruit is (\w+)\?/.exec(asked.slice(asked.lastIndexOf("Question:")))?.[1] ?? "none";
  return turn % 2 === 0 ? fence("print(context)") : fence(`FINAL("${word}")`);
}

describe("the trajectory export has one owner", () => {
  it("the page's stored exchanges and the session's runs export the same lines", async () => {
    const root = new InstantEngine("root-model", reply, 8192);
    const config: RlmConfig = { ...DEFAULT_CONFIG, runMode: "rlm" };
    const session = new RlmSession({ createRepl: () => new ScriptedRepl(), engines: () => ({ root, sub: root }), config: () => config });
    await session.addDocuments([{ path: "fruit.txt", data: new Blob(["apple is red\npear is green\n"]) }]);
    const exchanges: Exchange[] = [];
    for (const [i, question] of ["Which fruit is red?", "Which fruit is green?"].entries()) {
      const exchange = newExchange(`e${i}`, question);
      const result = await session.ask(question, { onEvent: (event) => applyEvent(exchange, event) });
      applyResult(exchange, result);
      exchanges.push(exchange);
    }
    expect(exchanges.map((e) => e.status)).toEqual(["answered", "answered"]);

    const metadata = session.metadata();
    const fromSession = parseJsonl(session.exportJsonl());
    const fromPage = parseJsonl(trajectoryJsonl(metadata, exchanges));
    expect(fromPage.iterations).toEqual(fromSession.iterations);
    expect(fromSession.iterations.map((it) => it.question_index)).toEqual(exchanges.flatMap((e, i) => e.iterations.map(() => i)));
    expect(fromSession.iterations.at(-1)?.final_answer).toBe(exchanges[1]!.answer);
    expect(fineTuneJsonl(exchanges).trim().split("\n")).toHaveLength(2);
    session.close();
  });
});
