// Issue 36 as the parser and the feedback see it: the pure pieces of the third pass, with the
// edges that keep them from taking what they should not (the loop itself:
// tests/node/small-model-third-pass.test.ts, in the guided, standard and canonical profiles).
import { describe, expect, it } from "vitest";
import { messageForInaction } from "../../src/core/feedback.ts";
import { taskFacts } from "../fixtures/task-facts.ts";
import { inactionReply } from "../../src/core/escalation.ts";
import { isToken, lookupable, shownAlone } from "../../src/core/document-check.ts";
import { printedNothingFound } from "../../src/core/empty-match.ts";
import { labelledFinal } from "../../src/core/labelled-final.ts";
import { pythonForShell, pythonForTool, xmlCommand } from "../../src/core/python-equivalent.ts";
import { analyseReply } from "../../src/core/reply.ts";
import { spentOnThinking, thinkingOff } from "../../src/core/thinking-retry.ts";

const facts = taskFacts();

describe("§6 stray closing tags", () => {
  it("a </think> after the code is a leftover: the code runs, the tag is gone", () => {
    const a = analyseReply('Searching.\n```repl\nprint(search("ERROR"))\n```\n</think>\nWaiting for the output.');
    expect(a.runnable.map((b) => b.code)).toEqual(['print(search("ERROR"))']);
    expect(a.normalised.text).not.toContain("</think>");
  });

  it("a </think> that ends thinking whose opening tag the server dropped still ends it", () => {
    const a = analyseReply('I could try ```repl in my head.\n</think>\n```repl\nprint(search("ERROR"))\n```');
    expect(a.runnable.map((b) => b.code)).toEqual(['print(search("ERROR"))']);
    expect(a.normalised.text).not.toContain("I could try");
  });

  it.each(["</tool_response>", "</answer>", "</function_call>"])("%s with no opening tag is removed", (tag) => {
    expect(analyseReply(`\`\`\`repl\nprint(1)\n\`\`\`\n${tag}`).normalised.text).toBe("```repl\nprint(1)\n```");
  });

  it("inside code, and with its opening tag, a closing tag stays", () => {
    const code = '```repl\nparts = context.split("</answer>")\n```';
    expect(analyseReply(code).runnable[0]!.code).toBe('parts = context.split("</answer>")');
    expect(analyseReply("<answer>42</answer>").normalised.text).toBe("<answer>42</answer>");
  });
});

describe("§7 finals in other harnesses' words", () => {
  it.each([
    ["Final Answer: 7319001", "7319001"],
    ["Thought: the output shows it.\nFinal Answer: 7319001", "7319001"],
    ["**Answer:** 7319001", "7319001"],
    ["Answer: the Blue Ledger", "the Blue Ledger"],
  ])("%j is a final", (reply, value) => {
    expect(analyseReply(reply).labelled).toBe(value);
  });

  it.each([
    ["beside code", "```repl\nprint(search('x'))\n```\nFinal Answer: 42"],
    ["after prose that is not ReAct's", "I am not sure yet.\nAnswer: 42"],
    ["an empty label", "Answer:"],
  ])("not %s", (_name, reply) => {
    expect(analyseReply(reply).labelled).toBeUndefined();
    expect(labelledFinal("Let me look.\nFinal Answer: 42")).toBeNull();
  });
});

describe("§8 not Python, not run: the re-prompt names the Python", () => {
  it("shell one-liners", () => {
    expect(pythonForShell("grep -c ERROR server.log", facts.helpers)).toBe(
      'print(sum(1 for line in context.split("\\n") if "ERROR" in line))',
    );
    expect(pythonForShell('$ grep "disk full" app.log | head', facts.helpers)).toBe('print(search("disk full"))');
    expect(pythonForShell("wc -l server.log", facts.helpers)).toBe('print(context.count("\\n") + 1)');
    expect(pythonForShell("cat server.log", facts.helpers)).toBe("print(context[:2000])");
    expect(pythonForShell("make all", facts.helpers)).toBeNull();
  });

  it("tools we do not have, and XML-ish commands", () => {
    expect(pythonForTool("web_search", { query: "ERROR" }, facts.helpers)).toBe('print(search("ERROR"))');
    expect(pythonForTool("read_file", { path: "server.log" }, facts.helpers)).toBe("print(context[:2000])");
    expect(pythonForTool("grep", { pattern: "ERROR" }, ["context", "llm_query"])).toBe(
      'print([line for line in context.split("\\n") if "ERROR" in line][:20])',
    );
    expect(xmlCommand('<grep pattern="ERROR"/>')).toEqual({ name: "grep", args: { pattern: "ERROR" } });
  });

  it("a bare fence whose first line is `xml` is XML: refused, and the message shows the Python", () => {
    const a = analyseReply("```\nxml\n<grep>ERROR</grep>\n```");
    expect(a.refused.map((b) => b.language)).toEqual(["xml"]);
    expect(messageForInaction(facts, a)).toContain('In Python that is:\n```repl\nprint(search("ERROR"))\n```');
  });
});

describe("§9 conflicting finals", () => {
  it("FINAL_VAR(x) and FINAL(x) name the same thing: no conflict", () => {
    const a = analyseReply("```repl\nx = 1\n```\n```repl\nFINAL_VAR(x)\n```\n```repl\nFINAL(x)\n```");
    expect(a.conflicting).toBeUndefined();
    expect(a.runnable).toHaveLength(3);
  });

  it("a final inside code next to a different prose final: both dropped, the rest runs", () => {
    const a = analyseReply('```repl\ns = llm_query("sum up")\nFINAL_VAR(s)\n```\nFINAL(The harvest.)');
    expect(a.conflicting).toEqual(["FINAL_VAR(s)", "The harvest."]);
    expect(a.runnable.map((b) => b.code)).toEqual(['s = llm_query("sum up")']);
  });

  it("finals inside blocks that also compute run in order: the first one reached is the answer", () => {
    const a = analyseReply("```repl\nsteps = ['one']\nFINAL(steps[0])\n```\n```repl\nsteps.append('x')\nFINAL('wrong')\n```");
    expect(a.conflicting).toBeUndefined();
    expect(a.runnable).toHaveLength(2);
  });

  it("an indented FINAL is the code's own logic, not a final line", () => {
    const a = analyseReply('```repl\nif found:\n    FINAL("yes")\nelse:\n    FINAL("no")\n```');
    expect(a.conflicting).toBeUndefined();
  });
});

describe("§1-3 cheap checks before any probe", () => {
  it("which answers are looked up, and which count as shown", () => {
    expect(isToken("7319001")).toBe(true);
    expect(isToken("the Blue Ledger")).toBe(false);
    expect(lookupable("ab")).toBe(false);
    expect(shownAlone("7319001", ["[s0] 7319001."])).toBe(true);
    expect(shownAlone("1", ["[s0] 7319001."])).toBe(false);
    expect(shownAlone("319", ["7,319,001"])).toBe(false);
  });

  it("an empty result printed last", () => {
    expect(printedNothingFound("searching…\n0\n")).toBe(true);
    expect(printedNothingFound("total: 0")).toBe(true);
    expect(printedNothingFound("[]")).toBe(true);
    expect(printedNothingFound("62")).toBe(false);
  });
});

describe("§4 escalation", () => {
  it("the second idle turn, whatever its fault, gets the one allowed form and a trajectory line", () => {
    const empty = analyseReply("");
    expect(inactionReply(facts, empty, 1)).toMatchObject({ message: expect.stringMatching(/Your reply was empty/), check: null });
    const second = inactionReply(facts, empty, 2);
    expect(second.message).toMatch(/Reply with exactly this form and nothing else[\s\S]*```repl\nprint\(search\("ERROR"\)\)\n```/);
    expect(second.check).toMatch(/^Escalated/);
  });
});

describe("§5 thinking", () => {
  it("open thoughts at the end are a spent budget; closed ones with the code inside are not", () => {
    expect(spentOnThinking({ text: "<think>where could it be…" })).toBe(true);
    expect(spentOnThinking({ text: "<think>done</think>", finishReason: "length" })).toBe(true);
    expect(spentOnThinking({ text: "<think>```repl\nprint(1)\n```</think>" })).toBe(false);
    expect(spentOnThinking({ text: "<think>x</think>\nFINAL(1)" })).toBe(false);
  });

  it("the retry: thinking off, /no_think for Qwen3 only, twice the budget within half the window", () => {
    const request = { messages: [{ role: "user" as const, content: "Question" }], maxTokens: 1000, thinking: true };
    expect(thinkingOff("Qwen3-4B", 8192)(request)).toMatchObject({
      thinking: false,
      maxTokens: 2000,
      messages: [{ content: "Question\n/no_think" }],
    });
    expect(thinkingOff("DeepSeek-R1-Distill-Qwen-7B", 3000)(request)).toMatchObject({
      maxTokens: 1500,
      messages: [{ content: "Question" }],
    });
    expect(request.messages[0]!.content).toBe("Question");
  });
});
