// The REPL worker is untrusted (it runs model-written code over documents that may carry
// prompt injections): the source ranges it reports are checked like every other field.
import { describe, expect, it } from "vitest";
import { MAX_CELL_SOURCES, ReplProtocolError, parseCellResult, parsePassages, parseSubcallRequest } from "../../src/repl/protocol.ts";

const base = { stdout: "", stderr: "", final_answer: null, locals: {}, execution_time: 0, error: null, interrupted: false };
const good = { doc: "a.txt", start: 3, end: 9, line: 1, end_line: 1, kind: "print" };

describe("source ranges from the worker", () => {
  it("keeps well-formed ranges and drops malformed ones one by one", () => {
    const sources = [
      good,
      { ...good, kind: "answer", score: 0.5 },
      { ...good, page: 2, end_page: 3 },
      { ...good, start: 9, end: 3 }, // backwards
      { ...good, start: -1 },
      { ...good, start: 1.5 },
      { ...good, kind: "exfiltrate" },
      { ...good, doc: "" },
      { ...good, doc: "x".repeat(5000) },
      { ...good, kind: "answer", score: 7 },
      { ...good, page: 2 }, // no end_page
      { ...good, end_line: 0 },
      "a string",
    ];
    const r = parseCellResult(JSON.stringify({ ...base, sources }));
    expect(r.sources).toEqual([good, { ...good, kind: "answer", score: 0.5 }, { ...good, page: 2, end_page: 3 }]);
  });

  it("refuses a cell result whose sources are not a list, and caps a long list", () => {
    expect(() => parseCellResult(JSON.stringify({ ...base, sources: { 0: good } }))).toThrow(ReplProtocolError);
    const many = parseCellResult(JSON.stringify({ ...base, sources: Array.from({ length: MAX_CELL_SOURCES + 50 }, () => good) }));
    expect(many.sources).toHaveLength(MAX_CELL_SOURCES);
    expect(parseCellResult(JSON.stringify(base)).sources).toBeUndefined();
  });

  it("takes one list of ranges per sub-call prompt, or refuses the request", () => {
    const req = parseSubcallRequest(
      JSON.stringify({ kind: "llm", prompts: ["a", "b"], model: null, sources: [[good], [{ ...good, kind: 1 }]] }),
    );
    expect(req.sources).toEqual([[good], []]);
    expect(() => parseSubcallRequest(JSON.stringify({ kind: "llm", prompts: ["a", "b"], model: null, sources: [[good]] }))).toThrow(
      ReplProtocolError,
    );
    expect(parseSubcallRequest(JSON.stringify({ kind: "llm", prompts: ["a"], model: null })).sources).toBeUndefined();
  });

  it("checks quoted passages: one per range asked about, strings only, clipped", () => {
    const long = "x".repeat(5000);
    expect(parsePassages(JSON.stringify([{ before: "a", text: "b", after: long }, null, { before: 1 }]), 3)).toEqual([
      { before: "a", text: "b", after: "x".repeat(2000) },
      null,
      null,
    ]);
    expect(() => parsePassages(JSON.stringify([]), 1)).toThrow(ReplProtocolError);
  });
});
