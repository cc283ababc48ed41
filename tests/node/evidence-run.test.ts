// An answer comes with its sources: a whole run through the loop (real Pyodide, the scripted
// model server), the ranked sources on the result, quoted, and in the trajectory the
// official visualizer still opens.
import { describe, expect, it } from "vitest";
import { runRlm } from "../../src/core/loop.ts";
import { runMetadata, toJsonl } from "../../src/core/trajectory.ts";
import { between, repl as code } from "../fixtures/scripted-server.ts";
import { visualizerProblems } from "../fixtures/visualizer-schema.ts";
import { config, engines, text } from "./helpers.ts";
import { useLoopStack } from "./loop-stack.ts";

const stack = useLoopStack({ contextWindow: 8192 });

describe("a run's answer and its sources", () => {
  it("points first at the passage the answering sub-call read, quoted, with its line", async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `Entry ${i}: routine maintenance log, nothing unusual was reported.`);
    lines[14_321] = "Entry 14321: the secret code for the vault is ZEBRA-4471, keep it safe.";
    const doc = lines.join("\n");
    await stack.repl.loadDocuments([{ name: "log.txt", data: text(doc) }]);
    await stack.repl.resetNamespace();
    stack.server.scripts.root = [
      code(
        [
          "import re",
          "m = re.search(r'secret code', context)",
          "reply = llm_query('<<' + context[m.start() - 2000:m.end() + 2000] + '>> What is the secret code?')",
          "print(context[:300])",
          "print(reply)",
        ].join("\n"),
      ),
      code("FINAL(reply)"),
    ];
    stack.server.scripts.sub = (req) => (/ZEBRA-4471/.test(between(req.lastUser, "<<", ">>")) ? "ZEBRA-4471" : "not found");
    const { root, sub } = engines(stack.server);
    const result = await runRlm({
      question: "What is the secret code?",
      repl: stack.repl,
      rootEngine: root,
      subEngine: sub,
      config: config(),
    });

    expect(result).toMatchObject({ status: "answered", answer: "ZEBRA-4471" });
    const [first, ...rest] = result.sources!;
    const at = doc.indexOf("ZEBRA-4471");
    expect(first).toMatchObject({ doc: "log.txt", line: 14_322 });
    expect(first!.start).toBeLessThanOrEqual(at);
    expect(first!.end).toBeGreaterThanOrEqual(at + 10);
    expect(first!.passage!.before + first!.passage!.text + first!.passage!.after).toContain("the secret code for the vault is ZEBRA-4471");
    expect(first!.reasons).toEqual(expect.arrayContaining(["answer-here", "subcall-answered"]));
    // The start of the file was printed too, but it did not produce the answer.
    expect(rest.map((s) => s.line)).toContain(1);

    // The sub-call carries its ranges, the trajectory still opens in the visualizer.
    const call = result.iterations[0]!.code_blocks[0]!.result.rlm_calls[0]!;
    expect(call.sources).toEqual([expect.objectContaining({ doc: "log.txt", kind: "prompt", start: doc.indexOf("secret code") - 2000 })]);
    const jsonl = toJsonl(runMetadata(root, sub, config()), result.iterations);
    expect(visualizerProblems(jsonl)).toEqual([]);
    expect(jsonl).toContain('"sources":[{"doc":"log.txt"');
  });
});
