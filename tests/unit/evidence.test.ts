// Ranking an answer's sources (src/core/evidence.ts): merging reads, choosing what each source
// points at, and putting first what produced the answer.
import { describe, expect, it } from "vitest";
import { answerOverlap, collectReads, rankSources, sourceLabel, withPassages, type Read } from "../../src/core/evidence.ts";
import { blockRecord, iterationRecord, subcallRecord } from "../../src/core/records.ts";
import type { IterationRecord } from "../../src/core/types.ts";
import type { SourceKind, SourceRange } from "../../src/repl/protocol.ts";
import { emptyCellResult } from "../../src/core/cell-result.ts";

const range = (doc: string, start: number, end: number, kind: SourceKind, extra: Partial<SourceRange> = {}): SourceRange => ({
  doc,
  start,
  end,
  line: 1 + Math.floor(start / 100),
  end_line: 1 + Math.floor((end - 1) / 100),
  kind,
  ...extra,
});
const read = (r: SourceRange, over: Partial<Read> = {}): Read => ({ range: r, turn: 0, finalCell: false, ...over });

describe("rankSources", () => {
  it("merges overlapping and adjacent reads of a document, not reads of other documents or apart", () => {
    const ranked = rankSources(
      [
        read(range("a.txt", 0, 100, "print")),
        read(range("a.txt", 50, 200, "print")),
        read(range("a.txt", 200, 300, "prompt")), // touches the one before
        read(range("a.txt", 301, 400, "print")), // one character apart
        read(range("b.txt", 0, 100, "print")),
      ],
      "",
    );
    const extents = ranked.map((s) => [s.doc, s.extent.start, s.extent.end]).sort();
    expect(extents).toEqual([
      ["a.txt", 0, 300],
      ["a.txt", 301, 400],
      ["b.txt", 0, 100],
    ]);
    expect(ranked.find((s) => s.extent.start === 0 && s.doc === "a.txt")!.kinds.sort()).toEqual(["print", "prompt"]);
  });

  it("puts first the chunk whose sub-call gave the answer, pointing at the match inside it", () => {
    const chunks = [0, 1, 2, 3].map((k) =>
      read(range("book.txt", k * 20_000, (k + 1) * 20_000, "prompt"), { reply: k === 2 ? "The code is ZEBRA-4471." : "Nothing relevant." }),
    );
    const match = read(range("book.txt", 48_210, 48_235, "match"));
    const elsewhere = read(range("notes.txt", 0, 500, "print"));
    const [first, ...rest] = rankSources([...chunks, match, elsewhere], "ZEBRA-4471");
    expect(first).toMatchObject({ doc: "book.txt", start: 48_210, end: 48_235, line: 483 });
    expect(first!.reasons).toContain("subcall-answered");
    expect(rest.map((s) => s.doc)).toEqual(["notes.txt"]);
  });

  it("ranks where the answer appears above what was merely read, and cited above printed", () => {
    const ranked = rankSources(
      [
        read(range("a.txt", 0, 100, "print")),
        read(range("a.txt", 5_000, 5_100, "cite")),
        read(range("a.txt", 9_000, 9_400, "print"), { turn: 2 }),
        read(range("a.txt", 9_210, 9_217, "answer", { score: 1 }), { turn: 2, finalCell: true }),
      ],
      "7654321",
    );
    expect(ranked.map((s) => [s.start, s.end])).toEqual([
      [9_210, 9_217],
      [5_000, 5_100],
      [0, 100],
    ]);
    expect(ranked[0]!.reasons).toEqual(expect.arrayContaining(["answer-here", "final-cell"]));
    expect(ranked[0]!.extent).toMatchObject({ start: 9_000, end: 9_400 });
  });

  it("prefers the document an answer names (which file defines …)", () => {
    const ranked = rankSources(
      [read(range("src/util/strings.js", 40, 70, "match")), read(range("src/index.js", 10, 30, "match"))],
      "src/util/strings.js",
    );
    expect(ranked[0]!.doc).toBe("src/util/strings.js");
    expect(ranked[0]!.reasons).toContain("document-named");
  });

  it("keeps at most the top N", () => {
    const reads = Array.from({ length: 30 }, (_, i) => read(range("a.txt", i * 1000, i * 1000 + 10, "match")));
    expect(rankSources(reads, "", 5)).toHaveLength(5);
  });
});

describe("reading sources out of a run's records", () => {
  it("takes cell ranges and sub-call prompt ranges, marking the final cell and each reply", () => {
    const first: IterationRecord = iterationRecord(0, 0, [], "");
    const call = subcallRecord("sub", "<<…>>", "The code is ZEBRA-4471.", { promptTokens: 1, completionTokens: 1 }, 5, {
      sources: [range("src/a.py", 0, 800, "prompt")],
    });
    first.code_blocks.push(blockRecord("x", emptyCellResult({ sources: [range("src/a.py", 100, 120, "match")] }), [call]));
    const second: IterationRecord = iterationRecord(1, 0, [], "");
    second.code_blocks.push(
      blockRecord(
        "FINAL(x)",
        emptyCellResult({ final_answer: "ZEBRA-4471", sources: [range("src/a.py", 300, 310, "answer", { score: 1 })] }),
        [],
      ),
    );
    const reads = collectReads([first, second]);
    expect(reads.map((r) => [r.range.kind, r.turn, r.finalCell, r.reply ?? null])).toEqual([
      ["match", 0, false, null],
      ["prompt", 0, false, "The code is ZEBRA-4471."],
      ["answer", 1, true, null],
    ]);
    expect(rankSources(reads, "ZEBRA-4471")[0]).toMatchObject({ start: 300, end: 310 });
  });
});

describe("answerOverlap", () => {
  it("scores containment, telling words and numbers", () => {
    expect(answerOverlap("ZEBRA-4471", "The code is zebra-4471.")).toBe(1);
    expect(answerOverlap("The launch code is ZEBRA-4471.", "ZEBRA-4471")).toBe(1);
    expect(answerOverlap("Ada was born in Westmarch in 1820", "Records of Westmarch list 1820 as the year.")).toBeGreaterThan(0.7);
    expect(answerOverlap("7654321", "I could not find it.")).toBe(0);
    expect(answerOverlap("7654321", "Error: the model is offline (7654321)")).toBe(0);
    expect(answerOverlap("Grüße aus Köln", "…grüße aus köln…")).toBe(1);
  });
});

describe("sourceLabel", () => {
  it("names a line, a line span, a PDF page and a DOCX paragraph", () => {
    expect(sourceLabel({ doc: "books/book.txt", start: 0, end: 5, line: 88_412, end_line: 88_412 })).toBe("book.txt · line 88,412");
    expect(sourceLabel({ doc: "a.txt", start: 0, end: 5, line: 3, end_line: 7 })).toBe("a.txt · lines 3–7");
    expect(sourceLabel({ doc: "report.pdf", start: 0, end: 5, line: 40, end_line: 40, page: 3, end_page: 3 })).toBe("report.pdf · p. 3");
    expect(sourceLabel({ doc: "notes.docx", start: 0, end: 5, line: 9, end_line: 9, paragraph: 14 })).toBe("notes.docx · ¶ 14");
  });
});

describe("withPassages", () => {
  const sources = rankSources([read(range("a.txt", 0, 10, "print")), read(range("b.txt", 0, 10, "print"))], "");

  it("attaches the REPL's quotes, and leaves a source without one when it has none", async () => {
    const quoted = await withPassages(sources, async (ranges) =>
      ranges.map((r) => (r.doc === "a.txt" ? { before: "", text: "alpha", after: "!" } : null)),
    );
    expect(quoted.find((s) => s.doc === "a.txt")!.passage).toEqual({ before: "", text: "alpha", after: "!" });
    expect(quoted.find((s) => s.doc === "b.txt")!.passage).toBeUndefined();
  });

  it("keeps the sources when quoting fails", async () => {
    const kept = await withPassages(sources, async () => {
      throw new Error("worker gone");
    });
    expect(kept).toEqual(sources);
  });
});

describe("the read a source points at", () => {
  it("is where the answer was found rather than a smaller match inside it", () => {
    const [first] = rankSources(
      [
        read(range("r.txt", 500, 1300, "prompt"), { reply: "The launch code is ZEBRA-4471." }),
        read(range("r.txt", 900, 914, "match")),
        read(range("r.txt", 900, 925, "answer", { score: 1 }), { turn: 1, finalCell: true }),
      ],
      "The launch code is ZEBRA-4471.",
    );
    expect(first).toMatchObject({ start: 900, end: 925 });
  });
});
