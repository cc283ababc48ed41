// FINAL rules from the catalogue: M03 marker misuse, M04 code and FINAL together, M15 answer form.
import { describe, expect, it } from "vitest";
import { assignmentAsCode, findFinalMarker, judgeFinalWithCode, mentions, normaliseAnswer, refuseFinal } from "../../src/core/finals.ts";

describe("M03: which markers count", () => {
  it("counts only at line start, outside code and thoughts", () => {
    expect(findFinalMarker("FINAL(42)")).toEqual({ kind: "value", value: "42", bareName: null });
    expect(findFinalMarker("  FINAL(42)")).toMatchObject({ value: "42" });
    expect(findFinalMarker("So the result is FINAL(42)")).toBeNull();
    expect(findFinalMarker("```repl\nFINAL(x)\n```")).toBeNull();
    expect(findFinalMarker("Call `FINAL(x)` when done")).toBeNull();
  });

  it("FINAL(x) with a bare identifier is marked, so the loop can resolve it like FINAL_VAR", () => {
    expect(findFinalMarker("FINAL(result)")).toEqual({ kind: "value", value: "result", bareName: "result" });
    expect(findFinalMarker("FINAL(final_answer)")).toMatchObject({ bareName: "final_answer" });
  });

  it("a quoted identifier is a literal, not a variable", () => {
    expect(findFinalMarker('FINAL("result")')).toEqual({ kind: "value", value: "result", bareName: null });
    expect(findFinalMarker("FINAL('Paris')")).toMatchObject({ bareName: null, value: "Paris" });
  });

  it("FINAL_VAR accepts quoted and unquoted names", () => {
    for (const reply of ["FINAL_VAR(total)", "FINAL_VAR('total')", 'FINAL_VAR("total")', "FINAL_VAR( total )"]) {
      expect(findFinalMarker(reply)).toEqual({ kind: "variable", name: "total" });
    }
  });

  it('FINAL_VAR("x") = value is read as an assignment and rewritten to code', () => {
    const marker = findFinalMarker('FINAL_VAR("answer_text") = counts["entity"] + 1');
    expect(marker).toEqual({ kind: "assignment", name: "answer_text", expression: 'counts["entity"] + 1' });
    expect(assignmentAsCode(marker as Extract<typeof marker, { kind: "assignment" }>)).toBe(
      'answer_text = counts["entity"] + 1\nFINAL_VAR("answer_text")',
    );
  });

  it.each([
    ["", "empty"],
    ["  ", "empty"],
    ['""', "empty"],
    ["think", "placeholder"],
    ["Thinking...", "placeholder"],
    ["your best answer to the question", "placeholder"],
    ["TBD", "placeholder"],
    ["...", "placeholder"],
    ["I will now search the context for the answer.", "plan"],
    ["Let me use llm_query on each chunk.", "plan"],
    ["First, I need to split the context into chunks.", "plan"],
    ["Use FINAL_VAR on the result", "plan"],
  ])("refuses %j as an answer (%s)", (value, why) => {
    expect(refuseFinal(value)).toBe(why);
  });

  it.each([["```repl\nchunks = context.split()\n```"], ["I'll do it like this:\n```python\nprint(llm_query(context[:1000]))\n```"]])(
    "refuses a plan written as REPL code: %j",
    (value) => {
      expect(refuseFinal(value)).toBe("plan");
    },
  );

  it.each([
    ["42"],
    ["Paris"],
    ["The vault code is 7319-ALPHA"],
    ["Answer: 12"],
    ["I think it is Lisbon"],
    ["(12345, 67890)\n(12345, 99999)"],
    // Answers about code quote it: a fence is not a plan by itself.
    ["The retry loop is in `net.py`:\n\n```python\nfor attempt in range(3):\n    send()\n```"],
    ["```constructor\ncode in constructor\n```\n\nEND-OF-ANSWER-0"],
  ])("accepts %j", (value) => {
    expect(refuseFinal(value)).toBeNull();
  });
});

describe("M04: a text FINAL next to code", () => {
  const ok = (stdout: string) => ({ stdout, stderr: "", error: null });
  it("stands when the code succeeded and printed the value", () => {
    expect(judgeFinalWithCode({ kind: "value", value: "7319", bareName: null }, [ok("code: 7319\n")])).toEqual({ accept: true });
  });
  it("is dropped when the value is not in the fresh output (a guess)", () => {
    expect(judgeFinalWithCode({ kind: "value", value: "1234", bareName: null }, [ok("code: 7319\n")])).toEqual({
      accept: false,
      why: "not-in-output",
    });
  });
  it("is dropped when a cell failed", () => {
    const failed = { stdout: "7319", stderr: "NameError", error: "NameError" };
    expect(judgeFinalWithCode({ kind: "value", value: "7319", bareName: null }, [failed])).toEqual({ accept: false, why: "code-failed" });
  });
  it("a variable marker stands after successful code (it names computed data)", () => {
    expect(judgeFinalWithCode({ kind: "variable", name: "result" }, [ok("")])).toEqual({ accept: true });
    expect(judgeFinalWithCode({ kind: "value", value: "result", bareName: "result" }, [ok("")])).toEqual({ accept: true });
  });
});

describe("M15: answer form", () => {
  it.each([
    ["Answer: 42", "42"],
    ["Final answer: Paris", "Paris"],
    ['"Paris"', "Paris"],
    ["'Paris'", "Paris"],
    ["`7319-ALPHA`", "7319-ALPHA"],
    ["**Paris**", "Paris"],
    ['**Answer:** "Paris"', "Paris"],
    ["  Lisbon  ", "Lisbon"],
  ])("%j becomes %j", (raw, tidy) => {
    expect(normaliseAnswer(raw)).toBe(tidy);
  });

  it("keeps the 'Answer:' label when the question asks for that form", () => {
    const q = "How many? Give your final answer in the form 'Answer: number'.";
    expect(normaliseAnswer('"Answer: 12"', q)).toBe("Answer: 12");
  });

  it("matches answers in output despite case, quotes and thousands separators", () => {
    expect(mentions("The total is 1,234 items", "1234")).toBe(true);
    expect(mentions("found 'Lindenholm'", "lindenholm")).toBe(true);
    expect(mentions("found 7319", "1234")).toBe(false);
  });
});
