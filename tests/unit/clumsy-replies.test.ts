// The clumsy-model cases issue 25 found still open, as the parser sees them: native tool calls
// and XML-ish commands mapped to what they mean (llm_query, FINAL) and never run as Python,
// fences that are not Python checked before they run, leftovers of other protocols removed, two
// conflicting finals beside unrun code taken as none, and no-action reminders that escalate. The
// same cases in the real loop: tests/node/small-model-loop.test.ts ("issue 25 §4").
import { describe, expect, it } from "vitest";
import { messageForInaction } from "../../src/core/feedback.ts";
import { taskFacts } from "../fixtures/task-facts.ts";
import { NoActionCounter } from "../../src/core/guards/index.ts";
import { numberFragment } from "../../src/core/guards/extraction.ts";
import { analyseReply, foreignAction } from "../../src/core/reply.ts";

const facts = taskFacts({ question: "Which ledger does the harbour master keep?" });

describe("native tool calls and XML-ish commands: mapped to what they mean", () => {
  it.each([
    ["bare JSON", '{"name": "llm_query", "arguments": {"prompt": "What is 2+2?"}}'],
    ["<tool_call> tags", '<tool_call>\n{"name": "llm_query", "arguments": {"query": "What is 2+2?"}}\n</tool_call>'],
    ["a list of calls in a json fence", '```json\n[{"name": "llm_query", "arguments": {"prompt": "What is 2+2?"}}]\n```'],
    ["Llama's <function=…>", '<function=llm_query>{"prompt": "What is 2+2?"}</function>'],
    ["an XML element named after the tool", "<llm_query>What is 2+2?</llm_query>"],
    ["<invoke> with parameters", '<invoke name="llm_query">\n<parameter name="prompt">What is 2+2?</parameter>\n</invoke>'],
    ["Mistral's [TOOL_CALLS]", '[TOOL_CALLS] [{"name": "llm_query", "arguments": {"prompt": "What is 2+2?"}}]'],
    [
      "a 'Calling tools:' log line",
      "Calling tools:\n[{'id': 'call_1', 'type': 'function', 'function': {'name': 'llm_query', 'arguments': {'prompt': 'What is 2+2?'}}}]",
    ],
  ])("%s calling llm_query runs llm_query (never the text as Python)", (_name, reply) => {
    const a = analyseReply(reply);
    expect(a.kind).toBe("neither");
    expect(a.runnable).toEqual([]);
    expect(a.foreign).not.toBeNull();
    expect(foreignAction(a.foreign!)).toEqual({ kind: "code", code: 'print(llm_query("What is 2+2?"))' });
  });

  it.each([
    ["JSON", '{"name": "FINAL", "arguments": {"answer": "42"}}'],
    ["<tool_call>", '<tool_call>{"name": "final_answer", "arguments": {"answer": "42"}}</tool_call>'],
    ["an XML element", "<FINAL>42</FINAL>"],
    ["<function=…>", '<function=final_answer>{"answer": "42"}</function>'],
  ])("a FINAL call as %s submits its value", (_name, reply) => {
    const a = analyseReply(reply);
    expect(a.final).toBeNull(); // not a text marker: the loop takes it through the same checks
    expect(foreignAction(a.foreign!)).toEqual({ kind: "final", value: "42" });
  });

  it("FINAL_VAR as a tool call submits the variable", () => {
    expect(foreignAction(analyseReply('{"name": "FINAL_VAR", "arguments": {"name": "result"}}').foreign!)).toEqual({
      kind: "code",
      code: 'FINAL_VAR("result")',
    });
  });

  it("any other tool is not run: the model is told tools are Python functions, with the Python to write", () => {
    const web = analyseReply('{"name": "web_search", "arguments": {"query": "harbour master"}}');
    expect(foreignAction(web.foreign!)).toBeNull();
    expect(messageForInaction(facts, web)).toMatch(/Tool calls do nothing here: tools are Python functions/);
    expect(messageForInaction(facts, web)).toMatch(/There is no `web_search`/);
    const search = analyseReply('<tool_call>{"name": "search", "arguments": {"pattern": "ledger"}}</tool_call>');
    expect(messageForInaction(facts, search)).toContain('print(search("ledger"))');
    const python = analyseReply('{"name": "python", "arguments": {"code": "print(len(context))"}}');
    expect(foreignAction(python.foreign!)).toBeNull();
    expect(messageForInaction(facts, python)).toContain("```repl\nprint(len(context))\n```");
    const xml = analyseReply("<execute>print(len(context))</execute>");
    expect(foreignAction(xml.foreign!)).toBeNull();
    expect(messageForInaction(facts, xml)).toContain("```repl\nprint(len(context))\n```");
    const smol = analyseReply(
      "Calling tools:\n[{'id': 'call_1', 'type': 'function', 'function': {'name': 'python_interpreter', 'arguments': 'print(len(context))'}}]",
    );
    expect(messageForInaction(facts, smol)).toContain("```repl\nprint(len(context))\n```");
  });
});

describe("not Python at all: checked with Python's parser before anything unlabelled runs", () => {
  it.each([
    ["XML in a bare fence", "```\n<command>list files</command>\n```"],
    ["prose in a bare fence", "```\nThe ledger is kept by the harbour master.\n```"],
    ["a <code> tag", "<code>ledger = harbour master</code>"],
  ])("%s must parse as Python before it runs", (_name, reply) => {
    const a = analyseReply(reply);
    expect(a.runnable).toHaveLength(1);
    expect(a.runnable[0]!.verdict).toBe("run-if-python");
  });

  it.each([
    ["shell in a bare fence (`ls -l` even parses as Python)", "```\nls -l\n```"],
    ["a Windows command", "```\nmd foldername\n```"],
    ["a <code> tag of shell", "<code>cat notes.txt | grep ledger</code>"],
    ["a prompt-prefixed command", "```\n$ grep -c ERROR server.log\n```"],
  ])("%s is shell: refused before it could run", (_name, reply) => {
    const a = analyseReply(reply);
    expect(a.runnable).toEqual([]);
    expect(a.refused).toMatchObject([{ language: "shell", verdict: "refuse" }]);
  });

  it("Python that starts with a shell word is still Python", () => {
    for (const code of ["head = context[:200]\nprint(head)", "find(context)", "type(context)", "sort = sorted(x)"]) {
      expect(analyseReply(`\`\`\`\n${code}\n\`\`\``).runnable, code).toHaveLength(1);
    }
  });

  it.each([["plaintext"], ["text"], ["output"], ["markdown"]])("a bare fence with %j alone on its first line says its language", (word) => {
    const a = analyseReply(`\`\`\`\n${word}\nThe ledger is kept by the harbour master.\n\`\`\``);
    expect(a.runnable[0]).toMatchObject({ language: word, verdict: "run-if-python", code: "The ledger is kept by the harbour master." });
  });

  it("labelled Python still runs as it is (its errors come from the REPL)", () => {
    expect(analyseReply("```python\nprint(len(context))\n```").runnable[0]!.verdict).toBe("run");
    expect(analyseReply("```repl\nls -l\n```").runnable[0]!.verdict).toBe("run");
  });
});

describe("leftovers of other protocols", () => {
  it("a stray </think> after the code is removed, not taken for the end of thinking", () => {
    const a = analyseReply("```repl\nprint(len(context))\n```\n</think>");
    expect(a.runnable.map((b) => b.code)).toEqual(["print(len(context))"]);
    expect(a.problems).not.toContain("action-in-thinking");
  });

  it("a stray </tool_call> is removed, also inside a fence", () => {
    expect(analyseReply("```repl\nprint(len(context))\n</tool_call>\n```").runnable.map((b) => b.code)).toEqual(["print(len(context))"]);
    expect(analyseReply("FINAL(42)\n</tool_call>").final).toMatchObject({ value: "42" });
  });

  it("<tool_call> tags around a code fence are leftovers: the code runs", () => {
    const a = analyseReply("<tool_call>\n```repl\nprint(len(context))\n```\n</tool_call>");
    expect(a.foreign).toBeNull();
    expect(a.runnable.map((b) => b.code)).toEqual(["print(len(context))"]);
  });

  it('a "Calling tools:" prefix is dropped before parsing', () => {
    const a = analyseReply("Calling tools:\n```repl\nprint(len(context))\n```");
    expect(a.kind).toBe("code");
    expect(analyseReply("Calling tools: FINAL(42)").final).toMatchObject({ value: "42" });
  });

  it("two conflicting finals beside unrun code: neither is taken, the code runs", () => {
    const a = analyseReply("```repl\nprint(result)\n```\nFINAL(42)\nOr maybe:\nFINAL(17)");
    expect(a.kind).toBe("code");
    expect(a.final).toBeNull();
    expect(a.problems).toContain("conflicting-finals");
    expect(a.conflicting).toEqual(["42", "17"]);
    // The same answer twice is no conflict.
    expect(analyseReply("```repl\nprint(result)\n```\nFINAL(42)\nFINAL(42)").final).toMatchObject({ value: "42" });
  });
});

describe("no-action turns escalate, then the fallback comes sooner", () => {
  it("a second no-action turn (not in a row) gets a shorter message with a one-line example", () => {
    const prose = analyseReply("I will look at the ledger next.");
    const first = messageForInaction(facts, prose, 1);
    const second = messageForInaction(facts, prose, 2);
    expect(first).toMatch(/Nothing ran/);
    expect(second).not.toBe(first);
    expect(second.length).toBeLessThan(first.length + 80);
    expect(second).toMatch(/```repl\nprint\(search\("harbour"\)\)\n```/);
    const canonical = messageForInaction({ ...facts, helpers: ["context", "llm_query", "SHOW_VARS", "answer"] }, prose, 2);
    expect(canonical).toContain("print(context[:2000])");
  });

  it("two in a row, or three in a run, hand the run to the fallback", () => {
    const inARow = new NoActionCounter();
    expect(inARow.note(false).fallback).toBe(false);
    expect(inARow.note(false)).toMatchObject({ fallback: true, consecutive: 2 });
    const spread = new NoActionCounter();
    const verdicts = [false, true, false, true, false].map((acted) => spread.note(acted));
    expect(verdicts.map((v) => v.fallback)).toEqual([false, false, false, false, true]);
    expect(verdicts.at(-1)).toMatchObject({ total: 3 });
  });
});

describe("wrong extraction that runs: an answer that is a fragment of a shown number", () => {
  it("finds the number the answer is a piece of, and only then", () => {
    expect(numberFragment("5", ["The code is 7284615.", "n = 3"])).toBe("7284615");
    expect(numberFragment("84", ["id 7284615"])).toBe("7284615");
    expect(numberFragment("5", ["The code is 7284615, and 5 more"])).toBeNull();
    expect(numberFragment("7284615", ["The code is 7284615."])).toBeNull();
    expect(numberFragment("Paris", ["7284615"])).toBeNull();
    expect(numberFragment("1,234", ["total 1,234"])).toBeNull();
    expect(numberFragment("615", ["total 7,284,615"])).toBe("7,284,615");
  });
});
