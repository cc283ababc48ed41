// The per-turn guards (M01 no-action counter, M02 evidence gate, M09 repeats, M09/M10 stuck)
// and the feedback the model gets, written from the catalogue's descriptions.
import { describe, expect, it } from "vitest";
import {
  EvidenceGate,
  NoActionCounter,
  RepeatGuard,
  StuckDetector,
  errorSignature,
  normaliseCode,
  similarity,
} from "../../src/core/guards/index.ts";
import { messageForInaction, missingVariableMessage, repeatedActionMessage, stuckWarning, taskReminder } from "../../src/core/feedback.ts";
import { taskFacts } from "../fixtures/task-facts.ts";
import { analyseReply } from "../../src/core/reply.ts";

describe("M09: repeated actions", () => {
  it("a failing cell sent again is not re-run: cached output, and fallback after two repeats", () => {
    const guard = new RepeatGuard();
    const code = "m = re.search(r'vault', context)\nprint(m.group(0))";
    expect(guard.check(code)).toEqual({ repeated: false });
    guard.record(code, "NameError: name 're' is not defined", true);
    const again = guard.check(`${code}\n`);
    expect(again).toMatchObject({ repeated: true, cachedOutput: "NameError: name 're' is not defined", repeats: 1, fallback: false });
    guard.record(code, "NameError: name 're' is not defined", true);
    expect(guard.check(code.replace(/'/g, '"'))).toMatchObject({ repeated: true, repeats: 2, fallback: true });
  });

  it("compares actions, not prose or comments", () => {
    expect(normaliseCode("# look\nprint(len(context))  \n\n")).toBe(normaliseCode("print(len(context))"));
    expect(similarity("abcdef", "abcdef")).toBe(1);
    expect(similarity("print(context[:100])", "print(context[:200])")).toBeGreaterThan(0.8);
    expect(similarity("print(len(context))", "FINAL(result)")).toBeLessThan(0.5);
  });

  it("looks back two turns, not further", () => {
    const guard = new RepeatGuard();
    for (const c of ["print(1)", "print(len(context))", "x = context[:10]"]) {
      guard.check(c);
      guard.record(c, "out", false);
    }
    expect(guard.check("print(1)").repeated).toBe(false);
    expect(guard.check("x = context[:10]").repeated).toBe(true);
  });

  it("code that advances state by hand (i += 1) is not a repeat when it worked", () => {
    const guard = new RepeatGuard();
    const step = "i += 1\nprint(chunks[i][:200])";
    guard.record(step, "chunk 1", false);
    expect(guard.check(step).repeated).toBe(false);
  });

  it("a different action resets the streak", () => {
    const guard = new RepeatGuard();
    guard.record("print(1)", "1", false);
    expect(guard.check("print(1)").repeated).toBe(true);
    expect(guard.check("print(len(context))").repeated).toBe(false);
    guard.record("print(1)", "1", false);
    expect(guard.check("print(1)")).toMatchObject({ repeats: 1 });
  });
});

describe("M01: turns without action", () => {
  it("falls back after two in a row; any action resets the run of them", () => {
    const c = new NoActionCounter();
    expect(c.note(false)).toEqual({ consecutive: 1, total: 1, fallback: false });
    expect(c.note(true)).toEqual({ consecutive: 0, total: 1, fallback: false });
    expect(c.note(false).fallback).toBe(false);
    expect(c.note(false)).toEqual({ consecutive: 2, total: 3, fallback: true });
  });
});

describe("M09/M10: stuck detection", () => {
  const err = (type: string, text: string) => ({ code: "x = context[:5]", errorType: type, errorText: text });

  it("the same error three times in a row is stuck, with a warning at two", () => {
    const d = new StuckDetector();
    expect(d.observe(err("KeyError", "KeyError: 'a'\n  at line 3: x['a']"))).toEqual({ stuck: null, warn: null });
    expect(d.observe(err("KeyError", "KeyError: 'a'\n  at line 4: x['a']"))).toEqual({ stuck: null, warn: "same-error" });
    expect(d.observe(err("KeyError", "KeyError: 'a'\n  at line 4: x['a']"))).toEqual({ stuck: "same-error", warn: null });
  });

  it("a different error or a success resets the count", () => {
    const d = new StuckDetector();
    d.observe(err("KeyError", "KeyError: 'a'"));
    d.observe(err("KeyError", "KeyError: 'a'"));
    expect(d.observe({ code: "print(context[:9])", errorType: null, errorText: "" }).stuck).toBeNull();
    expect(d.observe(err("KeyError", "KeyError: 'a'")).warn).toBeNull();
  });

  it("three turns without touching context are stuck", () => {
    const d = new StuckDetector();
    const idle = { code: "x = 1 + 1\nprint(x)", errorType: null, errorText: "" };
    d.observe(idle);
    expect(d.observe(idle).warn).toBe("no-context");
    expect(d.observe(idle).stuck).toBe("no-context");
    const d2 = new StuckDetector();
    d2.observe(idle);
    d2.observe(idle);
    expect(d2.observe({ code: "hits = search('vault')", errorType: null, errorText: "" }).stuck).toBeNull();
  });

  it("an unavailable import after being told is stuck", () => {
    const d = new StuckDetector();
    const imp = {
      code: "import numpy as np\nprint(len(context))",
      errorType: "ModuleNotFoundError",
      errorText: "ModuleNotFoundError: No module named 'numpy'",
    };
    expect(d.observe(imp)).toEqual({ stuck: null, warn: "forbidden-import" });
    expect(d.observe({ ...imp, code: "import pandas\nprint(context[:5])", errorText: "No module named 'pandas'" }).stuck).toBe(
      "forbidden-import",
    );
  });

  it("error signatures ignore line numbers", () => {
    expect(errorSignature("NameError", "NameError: name 'x' is not defined\n  at line 3: x")).toBe(
      errorSignature("NameError", "NameError: name 'x' is not defined\n  at line 7: x"),
    );
  });
});

describe("M02: the evidence gate", () => {
  const big = { contextChars: 200_000, rootWindowTokens: 4096 };

  it("refuses a text final before any code ran, then one no output mentioned: once per answer, at most twice", () => {
    const gate = new EvidenceGate(big);
    expect(gate.check({ answer: "4815162", source: "text" })).toMatchObject({ accept: false, reason: "no-code-yet", refusalsLeft: 1 });
    gate.noteOutput("One of the special magic numbers for odd-stew is: 7319001.");
    expect(gate.check({ answer: "1111", source: "text" })).toMatchObject({ accept: false, reason: "not-in-output", refusalsLeft: 0 });
    expect(gate.check({ answer: "2222", source: "text" })).toEqual({ accept: true, unsupported: true });
  });

  it("the same answer submitted again stands, marked as shown by no output (issue 25)", () => {
    const gate = new EvidenceGate(big);
    expect(gate.check({ answer: "4815162", source: "text" })).toMatchObject({ accept: false, reason: "no-code-yet" });
    expect(gate.check({ answer: '"4815162"', source: "text" })).toEqual({ accept: true, unsupported: true });
    // Even as the last chance, when a new guess would be refused.
    const last = new EvidenceGate(big);
    last.noteOutput("nothing useful");
    expect(last.check({ answer: "Lindenholm", source: "text" })).toMatchObject({ accept: false });
    expect(last.check({ answer: "1234", source: "text" })).toMatchObject({ accept: false });
    expect(last.check({ answer: "5678", source: "text" }, { lastChance: true })).toMatchObject({ accept: false });
    expect(last.check({ answer: "lindenholm", source: "text" }, { lastChance: true })).toEqual({ accept: true, unsupported: true });
    // A FINAL refused beside its code (M04) counts as asked once.
    const m04 = new EvidenceGate(big);
    m04.noteOutput("4");
    m04.noteRefused("5");
    expect(m04.check({ answer: "5", source: "text" })).toEqual({ accept: true, unsupported: true });
  });

  it("a bare word in FINAL(...) inside code is a hard-coded guess like a quoted one", () => {
    const gate = new EvidenceGate(big);
    gate.noteOutput("nothing useful");
    expect(gate.check({ answer: "Paris", source: "code", code: "FINAL(Paris)" })).toMatchObject({ accept: false, reason: "not-in-output" });
    gate.noteOutput("The capital is Paris.");
    expect(gate.check({ answer: "Rome", source: "code", code: "FINAL(Rome)" })).toMatchObject({ accept: false });
    expect(gate.check({ answer: "Paris", source: "code", code: "FINAL(Paris)" })).toEqual({ accept: true });
  });

  it("accepts a text final that an output showed", () => {
    const gate = new EvidenceGate(big);
    gate.noteOutput("[s0] 7319001");
    expect(gate.check({ answer: "7319001", source: "text" })).toEqual({ accept: true });
  });

  it("accepts a computed final from code, refuses a hard-coded guess", () => {
    const gate = new EvidenceGate(big);
    expect(gate.check({ answer: "7319001", source: "code", code: "m = re.search(r'is: (\\d+)', context)\nFINAL(m.group(1))" })).toEqual({
      accept: true,
    });
    expect(gate.check({ answer: "4815162", source: "code", code: 'FINAL("4815162")' })).toMatchObject({
      accept: false,
      reason: "no-code-yet",
    });
  });

  it("long answers (lists) are not looked up, only the code-ran rule applies", () => {
    const gate = new EvidenceGate(big);
    gate.noteOutput("users: 3");
    const pairs = Array.from({ length: 10 }, (_, i) => `(1000${i}, 2000${i})`).join("\n");
    expect(gate.check({ answer: pairs, source: "text" })).toEqual({ accept: true });
  });

  it("stays out of the way when the document fits the window", () => {
    const gate = new EvidenceGate({ contextChars: 3000, rootWindowTokens: 4096 });
    expect(gate.active).toBe(false);
    expect(gate.check({ answer: "x", source: "text" })).toEqual({ accept: true });
  });
});

describe("feedback messages", () => {
  const facts = taskFacts({
    question: "What is the vault code?",
    context: "`context` is a str of 2,000,000 characters.",
    helpers: ["llm_query", "search", "map_query", "FINAL", "FINAL_VAR"],
    variables: ["hits", "snippet"],
    restate: true,
  });

  it("the task reminder restates the question, the names that exist and the allowed imports", () => {
    const r = taskReminder(facts);
    expect(r).toContain("What is the vault code?");
    expect(r).toContain("2,000,000 characters");
    expect(r).toContain("search");
    expect(r).toContain("hits, snippet");
    expect(r).toContain("re, json, math");
  });

  it("restates the task only for profiles that ask for it", () => {
    expect(messageForInaction({ ...facts, restate: false }, analyseReply("Let me think."))).not.toContain("REMINDER");
    expect(messageForInaction(facts, analyseReply("Let me think."))).toContain("REMINDER");
  });

  it.each([
    ["prose", "I will look at the context.", /Nothing ran: your reply had no code/],
    ["empty", "", /Your reply was empty/],
    ["a bash block", "```bash\ngrep vault context.txt\n```", /```bash block was not run: only Python runs here/],
    ["tool-call JSON", '{"name": "llm_query", "arguments": {"prompt": "x"}}', /Tool calls do nothing here/],
    ["code only in thoughts", "<think>```repl\nprint(1)\n```</think>", /inside <think>/],
    ["a refusal", "I'm sorry, I can't do that.", /This task is safe/],
    ["invented output", "Observation: it is 42\nFINAL(42)", /looked like REPL output was removed[\s\S]*FINAL written after it was ignored/],
  ])("%s gets a message that names its problem", (_name, reply, pattern) => {
    const message = messageForInaction(facts, analyseReply(reply));
    expect(message).toMatch(pattern);
    expect(message.split("\n")[0]!.length).toBeLessThan(220);
  });

  it("a bash block is never told it had 'no ```repl block'", () => {
    expect(messageForInaction(facts, analyseReply("```bash\nls\n```"))).not.toMatch(/no ```repl block|no code/);
  });

  it("missing variables list the names that exist, never the literal word", () => {
    const m = missingVariableMessage(facts, "result");
    expect(m).toContain("no variable named `result`");
    expect(m).toContain("hits, snippet");
  });

  it("a repeat shows the cached output and asks for a change of approach", () => {
    const m = repeatedActionMessage(facts, "KeyError: 'x'");
    expect(m).toContain("not run again");
    expect(m).toContain("KeyError: 'x'");
    expect(m).toContain("Change approach");
  });

  it("a forbidden import lists what can be imported", () => {
    expect(stuckWarning(facts, "forbidden-import")).toContain("re, json, math, collections");
  });
});
