// Reply normalisation and classification against replies written from the small-model
// catalogue (shared/reference/small-models.md): M01 no action, M05 fabricated output, M06 fences,
// M07 foreign protocols, M08 thinking — plus controls in every accepted form.
import { describe, expect, it } from "vitest";
import { analyseReply, detectForeignProtocol, foreignAction, normaliseReply, ROOT_STOP_SEQUENCES } from "../../src/core/reply.ts";
import { extractCodeBlocks, stripThinking } from "../../src/core/parse.ts";

const fence = (code: string, lang = "repl") => `\`\`\`${lang}\n${code}\n\`\`\``;

describe("controls: correct replies in every accepted form", () => {
  it.each([
    ["```repl", fence("print(len(context))")],
    ["```python", fence("print(len(context))", "python")],
    ["```py", fence("print(len(context))", "py")],
    ["```python3", fence("print(len(context))", "python3")],
    ["```Python (capitalised)", fence("print(len(context))", "Python")],
    ["bare ```", fence("print(len(context))", "")],
    ["bare ``` with python on the first line", "```\npython\nprint(len(context))\n```"],
    ["``` python (space)", "``` python\nprint(len(context))\n```"],
    ["four backticks", "````repl\nprint(len(context))\n````"],
    ["<code> tags", "<code>\nprint(len(context))\n</code>"],
    ["<pre><code class=language-python>", '<pre><code class="language-python">print(len(context))</code></pre>'],
    ["one-line fence", "```repl print(len(context))```"],
    ["indented in a list", "1. Look:\n   ```repl\n   print(len(context))\n   ```"],
  ])("%s is code that runs", (name, reply) => {
    const a = analyseReply(`Let me check.\n${reply}`);
    expect(a.kind).toBe("code");
    expect(a.runnable.map((b) => b.code)).toEqual(["print(len(context))"]);
    // Not labelled Python: it runs once Python's parser accepts it (issue 25).
    const unlabelled = ["bare ```", "<code> tags"].includes(name);
    expect(a.runnable[0]!.verdict).toBe(unlabelled ? "run-if-python" : "run");
    expect(a.problems).toEqual([]);
  });

  it.each([
    ["FINAL(42)", "42"],
    ['FINAL("Paris")', "Paris"],
    ["Done.\nFINAL(The vault code is 7319-ALPHA)", "The vault code is 7319-ALPHA"],
    ["**FINAL(bold)**", "bold"],
  ])("%j is a final", (reply, value) => {
    const a = analyseReply(reply);
    expect(a.kind).toBe("final");
    expect(a.final).toMatchObject({ kind: "value", value });
  });

  it("FINAL_VAR as text, quoted or not, names a variable", () => {
    expect(analyseReply("FINAL_VAR(result)").final).toEqual({ kind: "variable", name: "result" });
    expect(analyseReply("FINAL_VAR('result')").final).toEqual({ kind: "variable", name: "result" });
  });

  it("code with FINAL inside it is code (the REPL submits it), not a text final", () => {
    const a = analyseReply(fence("x = 2\nFINAL(x)"));
    expect(a.kind).toBe("code");
    expect(a.final).toBeNull();
  });

  it("the answer dict in code is code", () => {
    expect(analyseReply(fence('answer["content"] = "42"\nanswer["ready"] = True')).kind).toBe("code");
  });

  it("code and a text FINAL in one reply is 'both' (M04: the loop runs the code first)", () => {
    const a = analyseReply(`${fence("n = 3\nprint(n)")}\nFINAL(3)`);
    expect(a.kind).toBe("both");
  });

  it("several blocks keep their order", () => {
    const a = analyseReply(`${fence("a = 1")}\nthen\n${fence("b = 2", "python")}`);
    expect(a.runnable.map((b) => b.code)).toEqual(["a = 1", "b = 2"]);
  });
});

describe("M01: no executable action", () => {
  it.each([
    ["announced intent", "I will now search the context for the date."],
    ["prose about the task", "The question asks for the vault code. Searching for today's date now."],
    ["a plan", "Plan:\n1. Look at the context.\n2. Find the code.\n3. Answer."],
    ["'Let me think.'", "Let me think."],
    ["inline code mention only", "I will run `print(len(context))` next."],
  ])("%s is neither", (_name, reply) => {
    const a = analyseReply(reply);
    expect(a.kind).toBe("neither");
    expect(a.runnable).toEqual([]);
    expect(a.final).toBeNull();
  });

  it.each([[""], ["   \n\n  "], [null], [undefined]])("an empty reply (%j) is neither and never crashes", (reply) => {
    const a = analyseReply(reply);
    expect(a.kind).toBe("neither");
    expect(a.problems).toContain("empty");
  });

  it("a refusal on a benign task is noted and is not an answer", () => {
    const a = analyseReply("I'm sorry, but I can't help with reading that document.");
    expect(a.kind).toBe("neither");
    expect(a.problems).toContain("refusal");
  });

  it("FINAL mentioned mid-sentence is not a final", () => {
    expect(analyseReply("When done I will call FINAL(answer) with the result.").kind).toBe("neither");
    expect(analyseReply("Answer: FINAL(x)").kind).toBe("neither");
  });
});

describe("M05: fabricated REPL output", () => {
  it.each([
    ["REPL output:"],
    ["repl output"],
    ["Output:"],
    ["OUTPUT"],
    ["**Output:**"],
    ["Observation:"],
    ["observation"],
    ["REPL output (block 1):"],
    ["Execution result:"],
    ["```output"],
    ["Turn 3 of 20. Continue."],
  ])("a reply is cut at %j and a FINAL after it is ignored", (label) => {
    const reply = `${fence("n = len(context)\nprint(n)")}\n${label}\n123456\n\nFINAL(123456)`;
    const a = analyseReply(reply);
    expect(a.kind).toBe("code");
    expect(a.final).toBeNull();
    expect(a.runnable.map((b) => b.code)).toEqual(["n = len(context)\nprint(n)"]);
    expect(a.problems).toEqual(expect.arrayContaining(["fabricated-output", "final-after-fabricated-output"]));
    expect(a.normalised.text).not.toContain("123456");
  });

  it("cuts at a chat-template token anywhere, even inside a fence", () => {
    const a = analyseReply(`${fence("print(1)\n<|im_start|>user\nThe answer is 5")}`);
    expect(a.normalised.text).not.toContain("The answer is 5");
    expect(a.problems).toContain("fabricated-output");
  });

  it("does not cut at a label inside code, or at prose that merely starts with the word", () => {
    const code = 'print("Output: done")\nx = """\nOutput:\n"""';
    const a = analyseReply(`${fence(code)}\nOutput shows the length next.`);
    expect(a.normalised.cut).toBeNull();
    expect(a.runnable[0]!.code).toBe(code);
  });

  it("a reply that starts by inventing output keeps nothing of it", () => {
    const a = analyseReply("Observation: the context contains the answer 42.\nFINAL(42)");
    expect(a.kind).toBe("neither");
    expect(a.problems).toContain("final-after-fabricated-output");
  });

  it("the root stop sequences name the harness's labels and fit OpenAI's limit of four", () => {
    expect(ROOT_STOP_SEQUENCES.length).toBeLessThanOrEqual(4);
    for (const stop of ROOT_STOP_SEQUENCES) {
      const reply = `${fence("print(1)")}\n${stop.replace(/^\n/, "")}\n42`;
      expect(normaliseReply(reply).cut, stop).not.toBeNull();
    }
  });
});

describe("M06: wrong or malformed fences", () => {
  it.each([["bash"], ["sh"], ["shell"], ["console"], ["javascript"], ["js"], ["typescript"], ["xml"], ["html"], ["json"], ["sql"]])(
    "a ```%s block is never run and is reported",
    (lang) => {
      const a = analyseReply(fence("grep -n answer context.txt", lang));
      expect(a.kind).toBe("neither");
      expect(a.refused.map((b) => b.language)).toEqual([lang]);
      expect(a.problems).toContain("wrong-language");
    },
  );

  it("a bare fence that says bash on its first line is refused too", () => {
    const a = analyseReply("```\nbash\nls -la\n```");
    expect(a.refused[0]?.language).toBe("bash");
    expect(a.kind).toBe("neither");
  });

  it.each([["markdown"], ["md"], ["text"], ["plaintext"], ["tool_code"]])("a ```%s block runs only if it parses as Python", (lang) => {
    const a = analyseReply(fence("print(len(context))", lang));
    expect(a.kind).toBe("code");
    expect(a.runnable[0]!.verdict).toBe("run-if-python");
  });

  it("an unclosed last fence is kept and flagged, so its cut-off last line can be dropped", () => {
    const a = analyseReply("```repl\nlines = context.split('\\n')\nprint(len(lines))\nprint(lines[");
    expect(a.kind).toBe("code");
    expect(a.runnable[0]).toMatchObject({ unclosed: true, verdict: "run" });
    expect(a.problems).toContain("unclosed-fence");
  });

  it("an unclosed <code> tag at the end is kept the same way", () => {
    const blocks = extractCodeBlocks("<code>\nprint(1)\nprint(2");
    expect(blocks[0]).toMatchObject({ form: "code-tag", unclosed: true, code: "print(1)\nprint(2" });
  });

  it("a fence with a language inside a Python string does not close the block", () => {
    const code = 's = """\n```python\nprint(1)\n"""\nprint(len(s))';
    expect(analyseReply(fence(code)).runnable.map((b) => b.code)).toEqual([code]);
  });

  it("mixed Python and shell: the Python runs, the shell is refused", () => {
    const a = analyseReply(`${fence("ls", "bash")}\n${fence("print(1)", "python")}`);
    expect(a.kind).toBe("code");
    expect(a.runnable).toHaveLength(1);
    expect(a.refused).toHaveLength(1);
  });
});

describe("M07: tool-call JSON and other agent protocols", () => {
  it.each([
    ["bare JSON", '{"name": "llm_query", "arguments": {"prompt": "What is the code?"}}'],
    ["JSON in a json fence", '```json\n{"name": "python", "arguments": {"code": "print(1)"}}\n```'],
    ["OpenAI function shape", '{"type": "function", "function": {"name": "search", "arguments": "{\\"q\\": \\"x\\"}"}}'],
    ["a list of calls", '[{"name": "FINAL", "arguments": {"answer": "42"}}]'],
    ["<tool_call> tags", '<tool_call>\n{"name": "python", "arguments": {"code": "print(len(context))"}}\n</tool_call>'],
    ["LangChain tool_input", '{"tool": "python_repl", "tool_input": "print(1)"}'],
    ["ReAct text", "Thought: I need the length.\nAction: python\nAction Input: print(len(context))"],
  ])("%s is a foreign protocol: neither, never an answer", (_name, reply) => {
    const a = analyseReply(reply);
    expect(a.kind).toBe("neither");
    expect(a.foreign).not.toBeNull();
    expect(a.final).toBeNull();
    expect(a.problems).toContain("foreign-protocol");
  });

  it("a FINAL inside a tool call is not taken as the answer", () => {
    const a = analyseReply('{"name": "FINAL", "arguments": {"answer": "42"}}');
    expect(a.final).toBeNull();
  });

  it("JSON that is data, not a call, is not a tool call", () => {
    expect(detectForeignProtocol('{"counts": {"a": 1}}')).toBeNull();
  });

  it("maps llm_query and FINAL calls to what they mean, and nothing else (issue 25)", () => {
    expect(foreignAction(detectForeignProtocol('{"name": "python", "arguments": {"code": "print(1)"}}')!)).toBeNull();
    expect(foreignAction(detectForeignProtocol('{"name": "llm_query", "arguments": {"prompt": "hi"}}')!)).toEqual({
      kind: "code",
      code: 'print(llm_query("hi"))',
    });
    expect(foreignAction(detectForeignProtocol('[{"name": "FINAL", "arguments": {"answer": "42"}}]')!)).toEqual({
      kind: "final",
      value: "42",
    });
    expect(foreignAction(detectForeignProtocol('{"name": "web_search", "arguments": {"q": "x"}}')!)).toBeNull();
  });
});

describe("M08: thinking leakage", () => {
  it.each([
    ["a closed span", "<think>I should count.</think>\n```repl\nprint(1)\n```"],
    ["an empty span", "<think>\n\n</think>\n\n```repl\nprint(1)\n```"],
    ["a lone closing tag (server dropped the opening one)", "I should count the lines first.\n</think>\n```repl\nprint(1)\n```"],
    ["<thinking> spelling", "<thinking>hmm</thinking>```repl\nprint(1)\n```"],
  ])("%s is removed before parsing", (_name, reply) => {
    const a = analyseReply(reply);
    expect(a.runnable.map((b) => b.code)).toEqual(["print(1)"]);
    expect(a.normalised.text).not.toMatch(/think|count the lines/);
  });

  it("code or FINAL only inside thoughts does not run and is reported", () => {
    const code = analyseReply("<think>Run this:\n```repl\nprint(len(context))\n```\n</think>");
    expect(code.kind).toBe("neither");
    expect(code.problems).toContain("action-in-thinking");
    const final = analyseReply("<think>It is 42.\nFINAL(42)</think>");
    expect(final.kind).toBe("neither");
    expect(final.problems).toContain("action-in-thinking");
  });

  it("a span never closed (out of tokens) hides everything after it", () => {
    const a = analyseReply("Checking.\n<think>The answer might be\nFINAL(7)");
    expect(a.kind).toBe("neither");
    expect(stripThinking("a<think>b")).toBe("a");
  });

  it("a FINAL after thinking counts", () => {
    expect(analyseReply("<think>It is 42.</think>\nFINAL(42)").final).toMatchObject({ value: "42" });
  });
});
