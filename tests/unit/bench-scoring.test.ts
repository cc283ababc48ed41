// Scorers on known cases, including the worked examples of OOLONG's _synth_score
// (reference/rlm-harness.md §6.2).
import { describe, expect, it } from "vitest";
import {
  containsScore,
  expectedText,
  extractIntegers,
  extractPairs,
  extractPaths,
  numberScore,
  oolongParseAnswer,
  oolongScore,
  pathScore,
  scoreAnswer,
  setF1,
} from "../../src/bench/scoring.ts";
import type { Expected } from "../../src/bench/types.ts";

describe("OOLONG synth score (port of _synth_score)", () => {
  it("matches the harness's worked examples", () => {
    expect(oolongScore("abbreviation", "label", "Answer: abbreviation")).toBe(1);
    expect(oolongScore(12, "numeric", "Answer: 10")).toBeCloseTo(0.5625, 10);
    // No colon, 20+ characters: the last word ("users") is parsed, which is not an integer.
    expect(oolongScore(12, "numeric", "There are 10 such users")).toBe(0);
    // The substring fallback for labels.
    expect(oolongScore("ham", "label", "the label with most instances: spam (ham second)")).toBe(1);
  });

  it("parses the answer the way OOLONG does", () => {
    expect(oolongParseAnswer("Answer: **entity**")).toBe("entity");
    expect(oolongParseAnswer("Label: [location]")).toBe("location");
    expect(oolongParseAnswer("short")).toBe("short");
    expect(oolongParseAnswer("this answer has no colon and is long 42")).toBe("42");
    // The comparison phrase that occurs last wins, wherever it is.
    expect(oolongParseAnswer("entity is more common than x; wait, it is less common than location")).toBe("less common than");
  });

  it("scores comparisons by phrase, never by the substring fallback", () => {
    expect(oolongScore("more common than", "comparison", "Answer: entity is more common than location")).toBe(1);
    expect(oolongScore("same frequency as", "comparison", "Answer: entity is same frequency as location")).toBe(1);
    expect(oolongScore("more common than", "comparison", "Answer: entity is less common than location")).toBe(0);
    // Gold phrase inside a sentence whose parsed phrase differs: no fallback credit.
    expect(oolongScore("more common than", "comparison", "not more common than? No: less common than")).toBe(0);
  });

  it("gives numeric partial credit 0.75^|error| and matches exact case-insensitively", () => {
    expect(oolongScore(74, "numeric", "Answer: 74")).toBe(1);
    expect(oolongScore(74, "numeric", "Answer: 77")).toBeCloseTo(0.75 ** 3, 12);
    expect(oolongScore(74, "numeric", "Answer: seventy-four")).toBe(0);
    expect(oolongScore("Human Being", "label", "answer: human being")).toBe(1);
    expect(oolongScore("location", "label", "Answer: entity")).toBe(0);
  });
});

describe("other scorers", () => {
  it("containment is word-bounded and ignores case and spacing", () => {
    expect(containsScore("4821337", "The special magic number is 4821337.")).toBe(1);
    expect(containsScore("4821337", "It is 14821337")).toBe(0);
    expect(containsScore("bolts of silk", "It carried Bolts  of\nsilk.")).toBe(1);
    expect(containsScore("Westmarch", "I do not know")).toBe(0);
  });

  it("numbers: the last integer, thousands separators removed, parts of words skipped", () => {
    expect(extractIntegers("I counted 1,234 records in utf8 files, v1.2")).toEqual([1234]);
    expect(numberScore(49, "There are 49 functions.")).toBe(1);
    expect(numberScore(49, "Between 40 and 47")).toBeCloseTo(0.75 ** 2, 12);
    expect(numberScore(49, "no idea")).toBe(0);
  });

  it("paths: exact or under a zip's top folder; hedging divides credit", () => {
    expect(extractPaths("See `lib/docx/body-reader.js`, e.g. index.js.")).toEqual(["lib/docx/body-reader.js", "index.js"]);
    expect(pathScore("lib/docx/body-reader.js", "It is in lib/docx/body-reader.js.")).toBe(1);
    expect(pathScore("lib/docx/body-reader.js", "mammoth-1.13.0/lib/docx/body-reader.js")).toBe(1);
    expect(pathScore("lib/docx/body-reader.js", "lib/docx/body-reader.js or lib/documents.js")).toBe(0.5);
    expect(pathScore("lib/docx/body-reader.js", "docx/body-reader.js")).toBe(0);
  });

  it("pairs: parsed in any order and compared as sets with F1", () => {
    expect(extractPairs("(200, 100)\n(100, 300)")).toEqual(["100,200", "100,300"]);
    expect(extractPairs("100, 200\n300 400")).toEqual(["100,200", "300,400"]);
    const gold = ["1,2", "1,3", "2,3"];
    expect(setF1(gold, ["1,2", "1,3", "2,3"])).toBe(1);
    expect(setF1(gold, ["1,2"])).toBeCloseTo(0.5, 12); // P=1, R=1/3
    expect(setF1(gold, ["1,2", "9,9"])).toBeCloseTo(0.4, 12); // P=1/2, R=1/3
    expect(setF1(gold, [])).toBe(0);
    expect(setF1([], [])).toBe(1);
    expect(scoreAnswer({ scorer: "set-f1", answer: gold, items: "pairs" }, "(2, 1)\n(3, 1)\n(2, 3)")).toBe(1);
  });

  it("path sets accept zip-prefixed paths", () => {
    const expected: Expected = { scorer: "set-f1", answer: ["lib/a.js", "lib/b.js"], items: "paths" };
    expect(scoreAnswer(expected, "repo/lib/a.js\nlib/b.js")).toBe(1);
    expect(scoreAnswer(expected, "lib/a.js\nlib/c.js")).toBeCloseTo(0.5, 12);
  });

  it("writes the gold answer as one line", () => {
    expect(expectedText({ scorer: "set-f1", answer: ["1,2", "1,3"], items: "pairs" })).toBe("(1, 2) (1, 3)");
    expect(expectedText({ scorer: "oolong", answer: 12, answerType: "numeric" })).toBe("12");
  });
});
