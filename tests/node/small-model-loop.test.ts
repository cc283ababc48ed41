// The small-model remedies in the real loop (issue 13): real Pyodide, the scripted server, a 4K
// root window. Each failure mode of the catalogue (tests/fixtures/weak-model.ts) is played as a
// turn, then a correct turn: the run must recover on that next turn with the right answer, never
// accept the failure as one, and tell the model what was wrong. Correct replies in every accepted
// form still answer; a root that only writes prose is answered by the fallback.
import { beforeEach, describe, expect, it } from "vitest";
import { runRlm } from "../../src/core/loop.ts";
import { ROOT_STOP_SEQUENCES } from "../../src/core/reply.ts";
import { OpenAIEngine } from "../../src/engines/openai.ts";
import { repl as code, type ScriptedRequest } from "../fixtures/scripted-server.ts";
import { FAILURE_MODES, failedTurn, planFor, type FailureMode } from "../fixtures/weak-model.ts";
import { visualizerProblems } from "../fixtures/visualizer-schema.ts";
import { runMetadata, toJsonl } from "../../src/core/trajectory.ts";
import type { RlmEvent } from "../../src/core/types.ts";
import { config, engines, text } from "./helpers.ts";
import { useLoopStack } from "./loop-stack.ts";

const WINDOW = 4096;
const NEEDLE = "7319001";
const QUESTION = "What is the special magic number for odd-stew mentioned in the provided text? Answer with the number.";
// Bigger than the root's window, so the evidence gate is on, as it is for real documents.
const filler = "The committee met again and discussed the weather, the harvest and the roads. ".repeat(400);
const HAYSTACK = `${filler.slice(0, 17_000)}\nOne of the special magic numbers for odd-stew is: ${NEEDLE}.\n${filler.slice(17_000)}`;
const plan = planFor(QUESTION)!;
const stepCode = plan.steps[0]!.code;
const competentStep = `Next step.\n\`\`\`repl\n${stepCode}\n\`\`\``;
/** The correct turn: the lookup and the answer from it. */
const correctTurn = code(`${stepCode}\nFINAL(result)`);

const stack = useLoopStack({ contextWindow: WINDOW });
beforeEach(async () => {
  stack.server.requests.length = 0;
  await stack.repl.resetNamespace();
  await stack.repl.loadDocuments([{ name: "haystack.txt", data: text(HAYSTACK) }]);
});

function ask(overrides: Parameters<typeof config>[0] = {}) {
  const { root, sub } = engines(stack.server, WINDOW);
  return runRlm({ question: QUESTION, repl: stack.repl, rootEngine: root, subEngine: sub, config: config(overrides) });
}

const rootRequests = () => stack.server.requests.filter((r) => r.isRoot);

/** What the model must be told after each failure (the message its next request carries). */
const TOLD: Record<FailureMode, RegExp | null> = {
  prose: /Nothing ran: your reply had no code/,
  empty: /Your reply was empty/,
  "premature-guess": /you have NOT looked at `context` yet/,
  "bare-final-name": /There is no variable named `result`/,
  "final-var-assign": null, // runs as meant: FINAL_VAR("x") = v is x = v, then submitted
  "code-and-final": /Your FINAL\(\.\.\.\) was not accepted: it was written before this output existed/,
  "fabricated-output": /looked like REPL output was removed.*The FINAL written after it was ignored/s,
  "bare-fence": /\[s0\] 7319001/,
  "code-tag": /\[s0\] 7319001/,
  "markdown-fence": /\[s0\] 7319001/,
  "shell-fence": /Your ```bash block was not run: only Python runs here/,
  "unclosed-fence": /not closed with ```; it ran without its cut-off last line `print\(len\(`/,
  "tool-call": /Tool calls do nothing here/,
  "thinking-leak": /Your code was inside <think>/,
  repetition: /You sent the same code as before, so it was not run again/,
};

describe("each catalogue failure, then a correct turn", () => {
  it.each(FAILURE_MODES.map((m) => [m]))("%s: recovers on the next turn with the right answer", async (mode) => {
    // A repetition repeats an earlier turn, so that turn comes first.
    const before = mode === "repetition" ? [competentStep] : [];
    const failed = failedTurn(mode, plan, 0, before[0] ?? null);
    stack.server.scripts.root = [...before, failed, correctTurn];
    const result = await ask();
    expect(result.status).toBe("answered");
    expect(result.answer).toBe(NEEDLE);
    expect(result.producedBy).toBe("model");
    const told = TOLD[mode];
    if (told === null) {
      expect(rootRequests()).toHaveLength(before.length + 1); // the failure itself was made to work
      return;
    }
    expect(rootRequests()).toHaveLength(before.length + 2);
    expect(rootRequests()[before.length + 1]!.lastUser).toMatch(told);
    // Small roots get the task restated with every complaint (guided profile, M10).
    if (!told.source.includes("s0")) expect(rootRequests()[before.length + 1]!.lastUser).toContain("REMINDER: your task is to answer");
  });
});

describe("controls: correct replies in every accepted form", () => {
  it.each([
    ["FINAL_VAR as text", "I have the answer.\nFINAL_VAR(result)"],
    ["FINAL(name) as text, the variable", "FINAL(result)"],
    ["FINAL(value) as text, seen in the output", `The output shows it.\nFINAL(${NEEDLE})`],
    ["FINAL in a stack.repl block", code("FINAL(result)")],
    ["FINAL_VAR in a python block", '```python\nFINAL_VAR("result")\n```'],
    ["the answer dict", code('answer["content"] = result\nanswer["ready"] = True')],
    ["code and FINAL in one reply, the output bearing it out", `${code("print(result)")}\nFINAL(${NEEDLE})`],
    ["FINAL in a bare fence", "```\nFINAL(result)\n```"],
    ["FINAL_VAR in a <code> tag", "<code>FINAL_VAR('result')</code>"],
    ["a FINAL tool call", `{"name": "FINAL", "arguments": {"answer": "${NEEDLE}"}}`],
    ["FINAL(answer) after answer = result", code("answer = result\nFINAL(answer)")],
    ["bold FINAL with a stray </think>", `**FINAL(${NEEDLE})**\n</think>`],
    ["the same FINAL twice", `FINAL(${NEEDLE})\nFINAL(${NEEDLE})`],
  ])("%s", async (_name, finalTurn) => {
    stack.server.scripts.root = [competentStep, finalTurn];
    const result = await ask();
    expect(result).toMatchObject({ status: "answered", answer: NEEDLE, producedBy: "model" });
    expect(rootRequests()).toHaveLength(2);
  });

  it('a tidy answer: quotes and an "Answer:" label are removed', async () => {
    stack.server.scripts.root = [competentStep, `FINAL("Answer: ${NEEDLE}")`];
    expect((await ask()).answer).toBe(NEEDLE);
  });

  it("FINAL(Paris)-style words are answers when no such variable exists", async () => {
    await stack.repl.loadDocuments([{ name: "haystack.txt", data: text("The capital is Paris.") }]);
    stack.server.scripts.root = [code("print(context)"), "FINAL(Paris)"];
    const result = await ask();
    expect(result.answer).toBe("Paris");
  });
});

describe("when the root cannot drive", () => {
  it("a root that only writes prose is answered by the fallback, marked so, with its sources", async () => {
    stack.server.scripts.root = "Searching for today's date now.";
    stack.server.scripts.sub = (req: ScriptedRequest) => {
      if (req.lastUser.includes("Answers found in different parts")) return NEEDLE;
      return new RegExp(`magic numbers? for odd-stew is: (\\d+)`).exec(req.lastUser)?.[1] ?? "NOT FOUND";
    };
    const result = await ask();
    expect(result.answer).not.toMatch(/Searching/);
    expect(result).toMatchObject({ status: "answered", answer: NEEDLE, producedBy: "fallback" });
    expect(result.fallback?.reason).toMatch(/wrote nothing that could run in 2 turns in a row/);
    expect(rootRequests()).toHaveLength(2);
    const step = result.iterations.at(-1)!;
    expect(step.fallback).toMatchObject({ chunks_read: result.fallback!.chunksRead, partial: false });
    const calls = step.code_blocks[0]!.result.rlm_calls;
    expect(calls.length).toBe(result.usage.subcalls);
    const at = HAYSTACK.indexOf(NEEDLE);
    const mapCalls = calls.filter((c) => c.prompt.startsWith("Here is part"));
    expect(mapCalls.every((c) => c.sources?.length === 1)).toBe(true);
    expect(mapCalls.some((c) => c.sources!.some((r) => r.start <= at && at < r.end) && c.response === NEEDLE)).toBe(true);
    // The answer's first source is the piece whose reply gave it.
    const first = result.sources?.[0];
    expect(first && first.doc === "haystack.txt" && first.extent.start <= at && at < first.extent.end).toBe(true);
    // The trajectory with the fallback step still opens in the official visualizer.
    const { root, sub } = engines(stack.server, WINDOW);
    expect(visualizerProblems(toJsonl(runMetadata(root, sub, config()), result.iterations))).toEqual([]);
  });

  it("the fallback's pieces end at a line break, so a sentence on a piece boundary is read whole", async () => {
    // 4K windows make 8,000-character pieces; the needle's line straddles character 8,000.
    const line = "Minutes of the meeting, nothing of note was decided today.\n";
    const before = line.repeat(Math.floor(7990 / line.length));
    const padded = before + "x".repeat(7990 - before.length) + "\n";
    await stack.repl.loadDocuments([
      { name: "haystack.txt", data: text(`${padded}One of the special magic numbers for odd-stew is: ${NEEDLE}.\n${line.repeat(200)}`) },
    ]);
    stack.server.scripts.root = "Let me think.";
    stack.server.scripts.sub = (req: ScriptedRequest) =>
      req.lastUser.includes("Answers found") ? NEEDLE : (/magic numbers for odd-stew is: (\d+)\./.exec(req.lastUser)?.[1] ?? "NOT FOUND");
    const result = await ask();
    expect(result).toMatchObject({ answer: NEEDLE, producedBy: "fallback" });
    const ranges = result.iterations.at(-1)!.code_blocks[0]!.result.rlm_calls.flatMap((c) => c.sources ?? []);
    expect(ranges[0]).toMatchObject({ doc: "haystack.txt", start: 0, end: padded.length, line: 1 });
  });

  it("prose at the turn limit is never the answer: the fallback reads the document", async () => {
    stack.server.scripts.root = (req) => (req.lastUser.includes("out of turns") ? "Let me think." : competentStep);
    stack.server.scripts.sub = (req: ScriptedRequest) =>
      req.lastUser.includes("Answers found") ? NEEDLE : (/is: (\d+)/.exec(req.lastUser)?.[1] ?? "NOT FOUND");
    const result = await ask({ maxIterations: 2 });
    expect(result.answer).toBe(NEEDLE);
    expect(result.producedBy).toBe("fallback");
    expect(result.fallback?.reason).toBe(
      "The model could not drive the run: it used all 2 turns, and its last reply gave no usable answer.",
    );
  });

  it("a guess at the final request is refused even after the gate's two refusals, and the fallback answers", async () => {
    stack.server.scripts.root = (req) =>
      req.lastUser.includes("out of turns") ? `FINAL(${plan.guess})` : req.turn === 0 ? "FINAL(1111)" : "FINAL(2222)";
    stack.server.scripts.sub = (req: ScriptedRequest) =>
      req.lastUser.includes("Answers found") ? NEEDLE : (/is: (\d+)/.exec(req.lastUser)?.[1] ?? "NOT FOUND");
    const result = await ask({ maxIterations: 2 });
    expect(result.answer).toBe(NEEDLE);
    expect(result.producedBy).toBe("fallback");
    expect(rootRequests()).toHaveLength(3);
  });

  it("with no answer anywhere, the run ends without one and says why (exit non-zero in the CLI)", async () => {
    stack.server.scripts.root = "Let me think.";
    stack.server.scripts.sub = "NOT FOUND";
    const result = await ask();
    expect(result.answer).toBe("");
    // Not "failed": that means the harness broke, and a benchmark would retry the task.
    expect(result.status).toBe("too-many-errors");
    expect(result.message).toMatch(/found no answer/);
  });

  it("the same failing code again is not re-run, and the third time the harness takes over", async () => {
    stack.server.scripts.root = code("print(undefined_thing)");
    stack.server.scripts.sub = (req: ScriptedRequest) =>
      req.lastUser.includes("Answers found") ? NEEDLE : (/is: (\d+)/.exec(req.lastUser)?.[1] ?? "NOT FOUND");
    const result = await ask({ maxConsecutiveErrors: 10 });
    expect(result).toMatchObject({ answer: NEEDLE, producedBy: "fallback" });
    expect(result.fallback?.reason).toMatch(/same code 3 times/);
    // Only the first try ran: the repeats were answered from the cache.
    expect(result.iterations.filter((i) => i.code_blocks.some((b) => b.code.includes("undefined_thing")))).toHaveLength(1);
  });
});

describe("nudges", () => {
  it("turns that never read `context` get one reminder, not one every turn", async () => {
    stack.server.scripts.root = (req) => (req.turn < 5 ? code(`x${req.turn} = ${req.turn}\nprint(x${req.turn})`) : correctTurn);
    const result = await ask({ maxIterations: 8 });
    expect(result.answer).toBe(NEEDLE);
    const told = rootRequests().map((r) => (r.lastUser.includes("did not read `context`") ? 1 : 0));
    expect(told).toEqual([0, 0, 0, 1, 0, 0]);
  });
});

describe("a reply that runs away", () => {
  it("is cut where it starts repeating itself; what came before runs, and the model is told", async () => {
    const loop = "I will check the context again. ".repeat(150);
    stack.server.scripts.root = [{ text: `${code(stepCode)}\n${loop}`, delayMs: 3000 }, correctTurn];
    const events: RlmEvent[] = [];
    const { root, sub } = engines(stack.server, WINDOW);
    const result = await runRlm({
      question: QUESTION,
      repl: stack.repl,
      rootEngine: root,
      subEngine: sub,
      config: config(),
      onEvent: (e) => events.push(e),
    });
    expect(result.answer).toBe(NEEDLE);
    const first = result.iterations[0]!;
    expect(first.response.length).toBeLessThan(loop.length / 2);
    expect(first.code_blocks[0]?.result.stdout).toContain(`[s0] ${NEEDLE}`);
    expect(rootRequests()[1]!.lastUser).toContain("Your reply kept repeating the same text, so it was cut off there.");
    expect(events.some((e) => e.type === "notice" && /began repeating itself/.test(e.message))).toBe(true);
  });
});

describe("what every request carries", () => {
  it("root requests send the harness labels as stop sequences and thinking off for Qwen3; sub-calls think not either", async () => {
    const root = new OpenAIEngine({ baseUrl: stack.server.baseUrl, model: "Qwen3-4B", contextWindow: WINDOW });
    const sub = root.withModel("Qwen3-0.6B", WINDOW);
    stack.server.scripts.root = [code("r = llm_query('ping')\nprint(r)"), code("FINAL(r)")];
    stack.server.scripts.sub = "pong";
    const result = await runRlm({ question: QUESTION, repl: stack.repl, rootEngine: root, subEngine: sub, config: config() });
    expect(result.answer).toBe("pong");
    for (const r of rootRequests()) {
      expect(r.body.stop).toEqual([...ROOT_STOP_SEQUENCES]);
      expect(r.body.chat_template_kwargs).toEqual({ enable_thinking: false });
    }
    const subRequest = stack.server.requests.find((r) => !r.isRoot)!;
    expect(subRequest.body.chat_template_kwargs).toEqual({ enable_thinking: false });
    expect(subRequest.body.stop).toBeUndefined();
  });

  it("thinking on for the root when asked; sub-calls stay off", async () => {
    const root = new OpenAIEngine({ baseUrl: stack.server.baseUrl, model: "Qwen3-4B", contextWindow: WINDOW });
    stack.server.scripts.root = [code("r = llm_query('ping')\nFINAL(r)")];
    stack.server.scripts.sub = "pong";
    await runRlm({ question: QUESTION, repl: stack.repl, rootEngine: root, config: config({ thinking: true }) });
    expect(rootRequests()[0]!.body.chat_template_kwargs).toEqual({ enable_thinking: true });
    expect(stack.server.requests.find((r) => !r.isRoot)!.body.chat_template_kwargs).toEqual({ enable_thinking: false });
  });

  it("the prompt profile follows the model, or the setting", async () => {
    stack.server.scripts.root = [correctTurn];
    await ask(); // "root-model" at a 4K window: a small local model
    expect(rootRequests()[0]!.messages[0]!.content).toContain("search(pattern, window=200)");
    stack.server.requests.length = 0;
    await ask({ prompt: "canonical" });
    expect(rootRequests()[0]!.messages[0]!.content).toContain('answer["ready"] = True');
  });

  it("identical sub-call prompts are answered once per run and not counted again", async () => {
    stack.server.scripts.root = [code("a = llm_query('same question')\nb = llm_query('same question')\nFINAL(a + '/' + b)")];
    stack.server.scripts.sub = "one answer";
    const result = await ask({ maxSubcalls: 1 });
    expect(result.answer).toBe("one answer/one answer");
    expect(stack.server.requests.filter((r) => !r.isRoot)).toHaveLength(1);
    const calls = result.iterations[0]!.code_blocks[0]!.result.rlm_calls;
    expect(calls.map((c) => c.cached ?? false)).toEqual([false, true]);
  });
});

describe("issue 25: the loop never loses an answer the model found", () => {
  it.each(["guided", "standard", "canonical"] as const)(
    "%s: a cell prints CASE_DONE, then FINAL(CASE_DONE) as text is the word itself",
    async (prompt) => {
      stack.server.scripts.root = [code('print("CASE_DONE")'), "FINAL(CASE_DONE)"];
      const result = await ask({ prompt });
      expect(result).toMatchObject({ status: "answered", answer: "CASE_DONE", producedBy: "model" });
      expect(rootRequests()).toHaveLength(2);
    },
  );

  it("FINAL(CASE_DONE) inside a cell is the word too, not a NameError", async () => {
    stack.server.scripts.root = [code('print("CASE_DONE")\nFINAL(CASE_DONE)')];
    const result = await ask();
    expect(result).toMatchObject({ status: "answered", answer: "CASE_DONE", producedBy: "model" });
  });

  it("FINAL(name) of a variable in a cell is its value; FINAL(result) of no variable is never the word", async () => {
    stack.server.scripts.root = [code("CASE_DONE = 'the value'\nFINAL(CASE_DONE)")];
    expect((await ask()).answer).toBe("the value");
    stack.server.requests.length = 0;
    stack.server.scripts.root = [code("print(len(context))\nFINAL(result)"), correctTurn];
    const result = await ask();
    expect(result.answer).toBe(NEEDLE);
    expect(rootRequests()[1]!.lastUser).toMatch(/no variable named 'result'/);
  });

  it("the evidence gate asks once; the same answer again is accepted and marked as shown by no output", async () => {
    stack.server.scripts.root = [code("print(len(context))"), "FINAL(4815162)", "FINAL(4815162)"];
    const result = await ask();
    expect(result).toMatchObject({ status: "answered", answer: "4815162", producedBy: "model" });
    expect(result.unverified).toMatch(/no output/i);
    expect(rootRequests()).toHaveLength(3);
    expect(rootRequests()[2]!.lastUser).toMatch(/no output so far shows it/);
  });

  it("a final before any code, submitted twice, stands (marked); a supported one is not marked", async () => {
    stack.server.scripts.root = ["FINAL(4815162)", "FINAL(4815162)"];
    const guessed = await ask();
    expect(guessed).toMatchObject({ answer: "4815162", producedBy: "model" });
    expect(guessed.unverified).toBeTruthy();
    stack.server.scripts.root = [competentStep, `FINAL(${NEEDLE})`];
    expect((await ask()).unverified).toBeUndefined();
  });

  it("the fallback never replaces an answer submitted twice, even at the turn limit", async () => {
    stack.server.scripts.root = (req) => (req.turn === 0 ? code("print(len(context))") : `FINAL(${plan.guess})`);
    stack.server.scripts.sub = (req: ScriptedRequest) =>
      req.lastUser.includes("Answers found") ? NEEDLE : (/is: (\d+)/.exec(req.lastUser)?.[1] ?? "NOT FOUND");
    const result = await ask({ maxIterations: 2 });
    expect(result).toMatchObject({ answer: plan.guess, producedBy: "model" });
    expect(stack.server.requests.filter((r) => !r.isRoot)).toHaveLength(0);
  });
});

describe("issue 25 §4: the clumsy-model cases", () => {
  const subAnswers = (req: ScriptedRequest) => (req.lastUser.includes("2+2") ? "4" : "NOT FOUND");

  it("a native tool call of llm_query runs llm_query; a FINAL tool call submits; neither text runs as Python", async () => {
    stack.server.scripts.root = [
      '{"name": "llm_query", "arguments": {"prompt": "What is 2+2?"}}',
      '<tool_call>\n{"name": "FINAL", "arguments": {"answer": "4"}}\n</tool_call>',
    ];
    stack.server.scripts.sub = subAnswers;
    const result = await ask();
    expect(result).toMatchObject({ status: "answered", answer: "4", producedBy: "model" });
    expect(result.iterations[0]!.code_blocks.map((b) => b.code)).toEqual(['print(llm_query("What is 2+2?"))']);
    expect(rootRequests()[1]!.lastUser).toContain("4");
    expect(rootRequests()[1]!.lastUser).toMatch(/tools are Python functions/);
  });

  it("XML-ish commands mean the same", async () => {
    stack.server.scripts.root = ["<llm_query>What is 2+2?</llm_query>", '<function=final_answer>{"answer": "4"}</function>'];
    stack.server.scripts.sub = subAnswers;
    expect(await ask()).toMatchObject({ answer: "4", producedBy: "model" });
  });

  it("any other tool runs nothing and says tools are Python functions here", async () => {
    stack.server.scripts.root = ['{"name": "web_search", "arguments": {"query": "odd-stew"}}', correctTurn];
    const result = await ask();
    expect(result.answer).toBe(NEEDLE);
    expect(result.iterations[0]!.code_blocks).toEqual([]);
    expect(rootRequests()[1]!.lastUser).toMatch(/Tool calls do nothing here: tools are Python functions.*There is no `web_search`/s);
  });

  it.each([
    ["shell", "```\nls -l\n```"],
    ["a Windows command", "```\nmd foldername\n```"],
    ["XML", "```\n<command>list files</command>\n```"],
  ])("%s in a bare fence is checked with Python's parser and not run; only Python runs", async (_name, reply) => {
    stack.server.scripts.root = [reply, correctTurn];
    const result = await ask();
    expect(result.answer).toBe(NEEDLE);
    expect(result.iterations[0]!.code_blocks).toEqual([]);
    expect(rootRequests()[1]!.lastUser).toMatch(/only Python runs here/i);
  });

  it("no-action turns escalate: the second reminder is short with a one-line example; the third goes to the fallback", async () => {
    stack.server.scripts.root = (req) =>
      req.turn % 2 === 0 ? "I will now look for the magic number in the text." : code(`x${req.turn} = ${req.turn}\nprint(len(context))`);
    stack.server.scripts.sub = (req: ScriptedRequest) =>
      req.lastUser.includes("Answers found") ? NEEDLE : (/is: (\d+)/.exec(req.lastUser)?.[1] ?? "NOT FOUND");
    const result = await ask({ maxIterations: 10 });
    expect(result).toMatchObject({ answer: NEEDLE, producedBy: "fallback" });
    expect(result.fallback?.reason).toMatch(/3 turns/);
    expect(rootRequests()).toHaveLength(5);
    const first = rootRequests()[1]!.lastUser;
    const second = rootRequests()[3]!.lastUser;
    expect(first).toMatch(/Nothing ran/);
    expect(second).not.toBe(first);
    expect(second).toMatch(/```repl\nprint\(search\("[\w-]+"\)\)\n```/);
  });

  it("an answer that is a fragment of a number the output shows is asked about once, with the number", async () => {
    stack.server.scripts.root = [competentStep, "FINAL(9001)", `FINAL(${NEEDLE})`];
    const result = await ask();
    expect(result).toMatchObject({ answer: NEEDLE, producedBy: "model" });
    expect(rootRequests()[2]!.lastUser).toMatch(new RegExp(`9001 is only part of a number the output shows: ${NEEDLE}`));
  });

  it("a count of 0 while a search found hits is asked about once, with the evidence", async () => {
    const log = Array.from({ length: 400 }, (_, i) =>
      i % 40 === 7 ? `2026-01-0${1 + (i % 9)} ERROR disk full on node ${i}` : `2026-01-01 INFO ok ${i}`,
    ).join("\n");
    await stack.repl.loadDocuments([{ name: "server.log", data: text(`${log}\n${filler}`) }]);
    stack.server.scripts.root = [
      code('print(search("ERROR"))'),
      code('count = len([l for l in context.split("\\n") if l.startswith("Error:")])\nFINAL(count)'),
      code('count = len([l for l in context.split("\\n") if " ERROR " in l])\nFINAL(count)'),
    ];
    const result = await ask();
    expect(result).toMatchObject({ answer: "10", producedBy: "model" });
    const told = rootRequests()[2]!.lastUser;
    expect(told).toMatch(/Your answer is 0, but search\("ERROR"\) found 10 matches/);
    expect(told).toMatch(/Your pattern "Error:" matched 0 of [\d,]+ lines; the first lines are:/);
    expect(told).toContain("2026-01-01 INFO ok 0");
  });

  it("FINAL(...) printed from inside a cell: the model is told to call it outside the code", async () => {
    stack.server.scripts.root = [code(`${stepCode}\nprint(f"FINAL({result})")`), `FINAL(${NEEDLE})`];
    const result = await ask();
    expect(result.answer).toBe(NEEDLE);
    expect(rootRequests()[1]!.lastUser).toMatch(/printed FINAL\(7319001\): printing it submits nothing/);
  });

  it('answer = "text" keeps the text and explains the dict; answer["ready"] = True then submits it', async () => {
    stack.server.scripts.root = [code(`${stepCode}\nanswer = result`), code('answer["ready"] = True')];
    const result = await ask({ prompt: "canonical" });
    expect(result).toMatchObject({ answer: NEEDLE, producedBy: "model" });
    expect(rootRequests()[1]!.lastUser).toMatch(/`answer` is a dict here.*kept as answer\["content"\]/s);
  });

  it.each([
    ["a stray </think> after the code", () => `${correctTurn}\n</think>`],
    ["a stray </tool_call> inside the fence", () => code(`${stepCode}\nFINAL(result)\n</tool_call>`)],
    ['a "Calling tools:" prefix on the fence\'s line', () => `Calling tools: ${code(`${stepCode}\nFINAL(result)`).replace(/^[^`]*/, "")}`],
    ["<tool_call> tags around the code", () => `<tool_call>\n${correctTurn}\n</tool_call>`],
  ])("%s is a leftover: the code runs and answers at once", async (_name, reply) => {
    stack.server.scripts.root = [reply()];
    expect(await ask()).toMatchObject({ status: "answered", answer: NEEDLE, producedBy: "model" });
    expect(rootRequests()).toHaveLength(1);
  });

  it("two conflicting finals beside unrun code: neither is taken, the code runs, the model is told", async () => {
    stack.server.scripts.root = [`${competentStep}\nFINAL(1111)\nFINAL(${NEEDLE})`, `FINAL(${NEEDLE})`];
    const result = await ask();
    expect(result).toMatchObject({ answer: NEEDLE, producedBy: "model" });
    expect(result.iterations[0]!.final_answer).toBeNull();
    expect(result.iterations[0]!.code_blocks).toHaveLength(1);
    expect(rootRequests()[1]!.lastUser).toMatch(/two different answers.*neither was taken/s);
  });
});
