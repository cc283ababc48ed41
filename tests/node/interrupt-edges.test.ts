// Stop and the time limit reach Python through the interrupt buffer. Sent just as a cell
// begins, the request used to land in asyncio's own machinery around the cell: the runtime
// broke (the worker was rebuilt, every variable lost), or the request was swallowed and the
// loop ran on until the worker was killed. Both happened to a third of such cells.
import { afterEach, describe, expect, it } from "vitest";
import type { ReplClient } from "../../src/repl/client.ts";
import { startRepl } from "./helpers.ts";

describe("an interrupt sent as a cell begins", () => {
  let repl: ReplClient | undefined;
  afterEach(() => repl?.close());

  it.each(["sab", "jspi"] as const)(
    "stops that cell and costs nothing else (%s)",
    async (mode) => {
      repl = await startRepl(mode, { killGraceMs: 20_000 });
      await repl.runCell("kept = 'still here'");
      const outcomes: string[] = [];
      for (let i = 0; i < 24; i++) {
        // 1-8 ms: the request arrives before, or just as, Python starts the cell.
        const r = await repl.runCell("while True:\n    pass", { timeoutMs: (i % 8) + 1 });
        outcomes.push(`${r.error}${r.interrupted ? "" : " (not interrupted)"}`);
      }
      expect(outcomes).toEqual(Array(24).fill("KeyboardInterrupt"));
      expect(repl.restartCount).toBe(0);
      expect((await repl.runCell("print(kept)")).stdout.trim()).toBe("still here");
      // Nothing is left in the buffer to stop a cell that follows.
      expect((await repl.runCell("total = sum(range(10**6))\nprint(total)")).stdout.trim()).toBe("499999500000");
    },
    120_000,
  );
});
