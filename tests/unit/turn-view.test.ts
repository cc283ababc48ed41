// The page's turns are derived from a run's trajectory records (src/core/turn-view.ts), the only
// stored form of its steps: the turns derived from the records a run left must read as the turns
// the page folded from the same run's events while it went (src/app/run-view.ts).
import { describe, expect, it } from "vitest";
import { applyEvent, exchangeOf, fillSteps, markInterrupted, newExchange, storedOf } from "../../src/app/run-view.ts";
import { blockRecord, iterationRecord, subcallRecord } from "../../src/core/records.ts";
import { withTurnFacts } from "../../src/core/turn-facts.ts";
import { turnsOf, type TurnView } from "../../src/core/turn-view.ts";
import type { RlmEvent } from "../../src/core/types.ts";
import { MemoryStore } from "../../src/store/memory.ts";

const result = { stdout: "42\n", stderr: "", final_answer: null, locals: {}, execution_time: 0.5, error: "ValueError", interrupted: false };

/** A two-turn run as the core reports it: events, with each turn's record announced at its end. */
function run(): RlmEvent[] {
  const r0 = iterationRecord(0, 1_000, [], "```repl\nprint(llm_query('q'))\n```");
  r0.code_blocks.push(
    blockRecord("print(llm_query('q'))", result, [
      subcallRecord("sub", "q", "a", { promptTokens: 3, completionTokens: 1 }, 200, { kind: "rlm" }),
    ]),
  );
  r0.iteration_time = 2;
  const r1 = iterationRecord(1, 3_000, [], "FINAL(42)");
  r1.iteration_time = 1;
  const events: RlmEvent[] = [
    { type: "turn-started", depth: 0, turn: 0 },
    {
      type: "turn-finished",
      depth: 0,
      turn: 0,
      response: r0.response,
      usage: { promptTokens: 100, completionTokens: 10 },
      durationMs: 1500,
    },
    { type: "cell-started", depth: 0, turn: 0, cell: 0, code: "print(llm_query('q'))" },
    { type: "subcall-started", depth: 0, id: "x", turn: 0, cell: 0, kind: "rlm", prompt: "q", model: "sub" },
    { type: "subcall-finished", depth: 0, id: "x", response: "a", usage: { promptTokens: 3, completionTokens: 1 }, durationMs: 200 },
    { type: "cell-finished", depth: 0, turn: 0, cell: 0, result },
    { type: "iteration", depth: 0, record: r0 },
    { type: "turn-started", depth: 0, turn: 1 },
    { type: "history-compacted", depth: 0, droppedTurns: 1 },
    { type: "turn-finished", depth: 0, turn: 1, response: r1.response, usage: { promptTokens: 120, completionTokens: 4 }, durationMs: 700 },
    { type: "iteration", depth: 0, record: r1 },
  ];
  return events;
}

/** What a person sees of a turn: not the live-only clocks, not the sub-calls' ids. */
const seen = (t: TurnView) => ({
  ...t,
  startedAt: undefined,
  firstTokenAt: undefined,
  tokens: undefined,
  cells: t.cells.map((c) => ({ ...c, subcalls: c.subcalls.map((s) => ({ ...s, id: "" })) })),
});

describe("the turns derived from a run's records", () => {
  it("read as the turns the page showed while the run went", () => {
    const live = newExchange("e", "q?");
    const listen = withTurnFacts((event) => applyEvent(live, event));
    for (const event of run()) listen(event);
    expect(live.turns).toHaveLength(2);
    expect(turnsOf({ iterations: live.iterations }).map(seen)).toEqual(live.turns.map(seen));
  });

  it("without the turn facts the records lack what the page showed (tokens, time, notes)", () => {
    const live = newExchange("e", "q?");
    for (const event of run()) applyEvent(live, event);
    const derived = turnsOf({ iterations: live.iterations });
    expect(derived[0]).not.toHaveProperty("usage");
    expect(derived[1]?.notices).toEqual([]);
  });

  it("a turn cut off by a reload (no record yet) is kept, as a record, and shown again", async () => {
    const live = newExchange("e", "q?");
    const listen = withTurnFacts((event) => applyEvent(live, event));
    const events = run();
    // The page goes away while turn 2's cell runs: its reply is done, its record never comes.
    for (const event of events.slice(0, 9)) listen(event);
    listen({
      type: "turn-finished",
      turn: 1,
      response: "```repl\nslow()\n```",
      usage: { promptTokens: 9, completionTokens: 2 },
      durationMs: 50,
      depth: 0,
    });
    listen({ type: "cell-started", turn: 1, cell: 0, code: "slow()", depth: 0 });
    const store = new MemoryStore();
    await store.saveExchange("s", storedOf(markInterrupted(structuredClone(live))));

    const [reopened] = (await store.loadExchanges("s")).map(exchangeOf);
    expect(reopened?.steps).toMatchObject({ turns: 2, iterations: 1 });
    const steps = await store.loadSteps("e");
    expect(steps?.iterations).toHaveLength(1); // what exports and Continue read: finished turns only
    fillSteps(reopened!, steps);
    const [first, cut] = reopened!.turns;
    expect(seen(first!)).toEqual(seen(live.turns[0]!));
    expect(cut).toMatchObject({
      index: 1,
      text: "```repl\nslow()\n```",
      done: true,
      usage: { promptTokens: 9, completionTokens: 2 },
      durationMs: 50,
    });
    expect(cut?.notices).toEqual(live.turns[1]?.notices);
    expect(cut?.cells).toMatchObject([{ code: "slow()", result: { interrupted: true } }]);
  });
});
