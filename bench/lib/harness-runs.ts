// The method of bench/harness.ts (per root turn; llm_query round trip) with an in-memory model,
// over any REPL: the bench page runs it in Chromium and bench/browser-bench.ts runs it in Node
// as the same-run baseline. Pure TypeScript, no Node or DOM API.
import { runRlm } from "../../src/core/loop.ts";
import { DEFAULT_CONFIG, type RlmEvent } from "../../src/core/types.ts";
import type { ChatEngine, ChatRequest } from "../../src/engines/types.ts";
import type { ReplClient } from "../../src/repl/client.ts";
import { InstantEngine } from "../../tests/fixtures/instant-engine.ts";

/** Makes the engine under test from a script; in memory by default, or over HTTP (bench/harness.ts). */
export type EngineFactory = (reply: (request: ChatRequest) => string) => ChatEngine;
export const inMemory: EngineFactory = (reply) => new InstantEngine("instant", reply, 131_072);

export interface TurnTimes {
  /** One root turn: model reply + its code cell + everything the harness does around them. */
  turn: number[];
  /** turn − model − cell: the harness alone. */
  harness: number[];
  cell: number[];
}

export async function perTurn(repl: ReplClient, turns: number, runs: number, makeEngine: EngineFactory = inMemory): Promise<TurnTimes> {
  const script = (turn: number) => (turn >= turns - 1 ? "```repl\nFINAL('done')\n```" : `\`\`\`repl\nx = ${turn}\nprint(x)\n\`\`\``);
  const engine = makeEngine((req) => script(req.messages.filter((m) => m.role === "assistant").length));
  const out: TurnTimes = { turn: [], harness: [], cell: [] };
  for (let run = 0; run < runs; run++) {
    await repl.resetNamespace();
    let turnStart = 0;
    let modelMs = 0;
    let cellMs = 0;
    let cellStart = 0;
    let genStart = 0;
    const onEvent = (e: RlmEvent) => {
      const now = performance.now();
      if (e.type === "turn-started") {
        if (turnStart) {
          const total = now - turnStart;
          out.turn.push(total);
          out.harness.push(total - modelMs - cellMs);
          out.cell.push(cellMs);
        }
        turnStart = now;
        genStart = now;
        modelMs = 0;
        cellMs = 0;
      } else if (e.type === "turn-finished") modelMs = now - genStart;
      else if (e.type === "cell-started") cellStart = now;
      else if (e.type === "cell-finished") cellMs += now - cellStart;
    };
    const result = await runRlm({
      question: "bench",
      repl,
      rootEngine: engine,
      config: { ...DEFAULT_CONFIG, maxIterations: turns + 5 },
      onEvent,
    });
    if (result.answer !== "done") throw new Error(`unexpected run result ${result.status}`);
  }
  return out;
}

/** Milliseconds per sequential llm_query, timed inside Python; one sample per run. */
export async function roundTrip(repl: ReplClient, calls: number, runs: number, makeEngine: EngineFactory = inMemory): Promise<number[]> {
  const sub = makeEngine(() => "ok");
  const perCall: number[] = [];
  for (let run = 0; run < runs; run++) {
    // A different prompt each call: identical prompts are answered once per run (memoised), so
    // 'ping' × 300 would time the memo, not the round trip.
    const code = `import time\nt = time.perf_counter()\nfor i in range(${calls}):\n    assert llm_query('ping %d' % i) == 'ok'\nFINAL((time.perf_counter() - t) * 1000 / ${calls})`;
    const root = new InstantEngine("root", () => `\`\`\`repl\n${code}\n\`\`\``, 131_072);
    const result = await runRlm({
      question: "bench",
      repl,
      rootEngine: root,
      subEngine: sub,
      config: { ...DEFAULT_CONFIG, maxSubcalls: calls + 1, maxConcurrentSubcalls: 1 },
    });
    if (result.status !== "answered") throw new Error(`round-trip run ended with ${result.status}: ${result.message ?? ""}`);
    perCall.push(Number(result.answer));
  }
  return perCall;
}
