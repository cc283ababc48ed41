// Sources travel with the answer: the Markdown export quotes them, the trajectory JSONL carries
// them in fields the official visualizer ignores.
import { describe, expect, it } from "vitest";
import { answerMarkdown } from "../../src/app/exports.ts";
import { trajectoryJsonl } from "../../src/core/trajectory.ts";
import { newExchange, type Exchange } from "../../src/app/run-view.ts";
import type { RankedSource } from "../../src/core/evidence.ts";
import { blockRecord, iterationRecord } from "../../src/core/records.ts";
import { visualizerProblems } from "../fixtures/visualizer-schema.ts";

const source = (over: Partial<RankedSource> = {}): RankedSource => ({
  doc: "books/book.txt",
  start: 100,
  end: 110,
  line: 88_412,
  end_line: 88_412,
  extent: { start: 0, end: 400, line: 88_400, end_line: 88_420 },
  kinds: ["prompt", "answer"],
  reasons: ["answer-here", "subcall-answered"],
  score: 160,
  passage: { before: "The code *is* ", text: "ZEBRA-4471", after: ", keep it <safe>." },
  ...over,
});

function answered(sources: RankedSource[]): Exchange {
  const e = newExchange("x", "What is the code?");
  e.status = "answered";
  e.answer = "ZEBRA-4471";
  e.sources = sources;
  const it = iterationRecord(0, 0, [{ role: "user", content: "q" }], "reply");
  it.code_blocks.push(
    blockRecord(
      "FINAL('x')",
      {
        stdout: "",
        stderr: "",
        final_answer: "ZEBRA-4471",
        locals: {},
        execution_time: 0,
        error: null,
        interrupted: false,
        sources: [{ doc: "books/book.txt", start: 100, end: 110, line: 88_412, end_line: 88_412, kind: "answer", score: 1 }],
      },
      [],
    ),
  );
  it.final_answer = "ZEBRA-4471";
  e.iterations = [it];
  return e;
}

describe("exported answers", () => {
  it("list the sources with the passage quoted, the read part in bold, document text escaped", () => {
    const md = answerMarkdown(
      answered([
        source(),
        source({ doc: "report.pdf", page: 3, end_page: 3, passage: { before: "", text: "first\nsecond", after: "" }, reasons: [] }),
      ]),
      ["books/book.txt"],
    );
    expect(md).toContain("## Sources");
    expect(md).toContain("1. book.txt · line 88,412 (the answer appears here; a sub-call read this and its reply gave the answer)");
    expect(md).toContain("   > The code \\*is\\* **ZEBRA-4471**, keep it \\<safe\\>.");
    expect(md).toContain("2. report.pdf · p. 3\n   > **first**\n   > **second**");
  });

  it("have no Sources section when the run recorded none", () => {
    expect(answerMarkdown(answered([]), [])).not.toContain("## Sources");
  });

  it("carry the ranked sources on a question's last trajectory line, and the visualizer still opens it", () => {
    const jsonl = trajectoryJsonl(
      {
        type: "metadata",
        timestamp: new Date().toISOString(),
        root_model: "m",
        max_depth: 1,
        max_iterations: 5,
        backend: "openai",
        backend_kwargs: {},
        environment_type: "pyodide",
        environment_kwargs: {},
        other_backends: null,
      },
      [answered([source()])],
    );
    expect(visualizerProblems(jsonl)).toEqual([]);
    const line = JSON.parse(jsonl.trim().split("\n")[1]!);
    expect(line.answer_sources[0]).toMatchObject({ doc: "books/book.txt", line: 88_412 });
    expect(line.code_blocks[0].result.sources[0]).toMatchObject({ kind: "answer" });
  });
});
