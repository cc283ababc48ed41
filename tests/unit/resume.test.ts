// The conversation a continued run starts from: the earlier model turns and what they printed,
// the harness's own steps left out, and the note on whether variables survived.
import { describe, expect, it } from "vitest";
import { resumedTurns } from "../../src/core/resume.ts";
import type { IterationRecord } from "../../src/core/types.ts";

function turn(n: number, response: string, stdout: string, extra: Partial<IterationRecord> = {}): IterationRecord {
  const result = { stdout, stderr: "", locals: {}, execution_time: 0.1, rlm_calls: [], final_answer: null };
  return {
    type: "iteration",
    iteration: n,
    timestamp: "2026-01-01T00:00:00.000Z",
    prompt: [],
    response,
    code_blocks: stdout ? [{ code: "x", result }] : [],
    final_answer: null,
    iteration_time: 1,
    ...extra,
  };
}

describe("resumedTurns", () => {
  it("turns each model turn into its reply and its output, the last with the resume note", () => {
    const turns = resumedTurns([turn(1, "look", "first 100 chars"), turn(2, "count", "42 lines")], 2000, true);
    expect(turns).toHaveLength(2);
    expect(turns[0]).toEqual({ assistant: "look", user: expect.stringContaining("first 100 chars") });
    expect(turns[0]!.user).not.toContain("continues");
    expect(turns[1]!.user).toContain("42 lines");
    expect(turns[1]!.user).toContain("variables from these turns are still defined");
  });

  it("says the variables are gone when the worker changed, and leaves out the fallback's step", () => {
    const fallback = turn(3, "", "", { fallback: { reason: "r", chunks_read: 1, chunks_total: 1, partial: false } });
    const turns = resumedTurns([turn(1, "", ""), fallback], 2000, false);
    expect(turns).toHaveLength(1);
    expect(turns[0]!.assistant).toBe("(empty reply)");
    expect(turns[0]!.user).toContain("no code ran");
    expect(turns[0]!.user).toContain("variables from these turns are gone");
  });
});
