// Issue 36: the harness adds no failure of its own. Each kind of reply a small model was seen to
// write, played in the real loop (real Pyodide, the scripted server) under each prompt profile —
// guided, standard and canonical — with the behaviour the loop must show. The replies are written
// here, in the shape the kind takes; none is copied from a held-out set.
import { beforeEach, describe, expect, it } from "vitest";
import { runRlm } from "../../src/core/loop.ts";
import type { PromptProfileName } from "../../src/core/profiles/index.ts";
import { OpenAIEngine } from "../../src/engines/openai.ts";
import { repl as code, type ScriptedRequest } from "../fixtures/scripted-server.ts";
import { config, engines, text } from "./helpers.ts";
import { useLoopStack } from "./loop-stack.ts";

const WINDOW = 4096;
const NEEDLE = "7319001";
const filler = "The committee met again and discussed the weather, the harvest and the roads. ".repeat(400);
const INVOICES = ["Invoice 17: total = 40 EUR", "Invoice 23: total = 15 EUR", "Invoice 31: total = 7 EUR"].join("\n");
// Bigger than the root's window, so the evidence gate is on, as it is for real documents.
const HAYSTACK =
  `${filler.slice(0, 12_000)}\nThe harbour master keeps the Blue Ledger of tides in the east tower.\n${filler.slice(12_000, 20_000)}\n` +
  `One of the special magic numbers for odd-stew is: ${NEEDLE}.\n${INVOICES}\n${filler.slice(20_000)}`;
const MAGIC = "What is the special magic number for odd-stew mentioned in the provided text? Answer with the number.";
const LEDGER = "Which ledger does the harbour master keep?";
const SEARCH = code('print(search("odd-stew"))');
const PROFILES: PromptProfileName[] = ["guided", "standard", "canonical"];

const stack = useLoopStack({ contextWindow: WINDOW });
beforeEach(async () => {
  stack.server.requests.length = 0;
  stack.server.scripts.sub = undefined;
  await stack.repl.resetNamespace();
  await stack.repl.loadDocuments([{ name: "haystack.txt", data: text(HAYSTACK) }]);
});

const rootRequests = () => stack.server.requests.filter((r) => r.isRoot);
const notes = (result: Awaited<ReturnType<typeof runRlm>>) => result.iterations.flatMap((i) => i.harness_notes ?? []).join("\n");

function ask(profile: PromptProfileName, question = MAGIC, root?: OpenAIEngine) {
  const pair = engines(stack.server, WINDOW);
  return runRlm({ question, repl: stack.repl, rootEngine: root ?? pair.root, subEngine: pair.sub, config: config({ prompt: profile }) });
}

describe.each(PROFILES)("the %s profile", (profile) => {
  it("§1 a first-turn FINAL whose value stands verbatim in the document is accepted, and the trajectory says it was checked", async () => {
    stack.server.scripts.root = ['The harbour master keeps it.\nFINAL("the Blue Ledger")'];
    const result = await ask(profile, LEDGER);
    expect(result).toMatchObject({ status: "answered", answer: "the Blue Ledger", producedBy: "model" });
    expect(result.unverified).toBeUndefined();
    expect(rootRequests()).toHaveLength(1);
    expect(notes(result)).toMatch(/Checked the answer "the Blue Ledger" against the document: it stands verbatim/);
  });

  it("§1 control: what neither the document nor an output supports is still refused, and said so", async () => {
    stack.server.scripts.root = ['FINAL("the Red Ledger")', code('print(search("ledger"))'), 'FINAL("the Blue Ledger")'];
    const result = await ask(profile, LEDGER);
    expect(result).toMatchObject({ status: "answered", answer: "the Blue Ledger" });
    expect(rootRequests()[1]!.lastUser).toMatch(/Your answer was not accepted/);
    expect(notes(result)).toMatch(/"the Red Ledger" against the document: it is not in `context` either/);
  });

  it("§2 a greedy group's single digit is asked about once, with the whole number the document shows", async () => {
    stack.server.scripts.root = [
      code('import re\nm = re.search(r"odd-stew is: .*(\\d+)", context)\nFINAL(m.group(1))'),
      code('import re\nm = re.search(r"odd-stew is: (\\d+)", context)\nFINAL(m.group(1))'),
    ];
    const result = await ask(profile);
    expect(result).toMatchObject({ status: "answered", answer: NEEDLE });
    expect(rootRequests()[1]!.lastUser).toMatch(new RegExp(`Your answer 1 is only part of a longer value in the document: ${NEEDLE}`));
  });

  it("§3 a pattern that matched no line: 'matched 0 of N lines', with a line it should have matched", async () => {
    stack.server.scripts.root = [
      code('import re\ntotal = sum(int(x) for x in re.findall(r"Total: (\\d+)", context))\nprint(total)'),
      code('import re\ntotal = sum(int(x) for x in re.findall(r"total = (\\d+)", context))\nFINAL(total)'),
    ];
    const result = await ask(profile, "What is the sum of the invoice totals?");
    expect(result).toMatchObject({ status: "answered", answer: "62" });
    const told = rootRequests()[1]!.lastUser;
    expect(told).toMatch(/Your pattern "Total: \(\\\\d\+\)" matched 0 of [\d,]+ lines of `context`/);
    expect(told).toContain("A line it should have matched:\n  Invoice 17: total = 40 EUR");
  });

  it("§4 the second turn without code gets a different, shorter prompt with the one allowed form; the trajectory says so", async () => {
    stack.server.scripts.root = ["", SEARCH, "", `FINAL(${NEEDLE})`];
    const result = await ask(profile);
    expect(result).toMatchObject({ status: "answered", answer: NEEDLE });
    expect(rootRequests()[1]!.lastUser).toMatch(/Your reply was empty/);
    const second = rootRequests()[3]!.lastUser;
    expect(second).not.toMatch(/Your reply was empty/);
    expect(second).toMatch(/Reply with exactly this form and nothing else/);
    expect(notes(result)).toMatch(/Escalated: .*shorter prompt showing the one allowed form/);
  });

  it("§5 a reply that is only thinking is asked again with thinking off and a larger budget", async () => {
    const qwen = new OpenAIEngine({ baseUrl: stack.server.baseUrl, model: "Qwen3-1.7B", contextWindow: WINDOW });
    stack.server.scripts.root = (req: ScriptedRequest) =>
      req.lastUser.endsWith("/no_think")
        ? req.turn === 0
          ? SEARCH
          : `FINAL(${NEEDLE})`
        : `<think>${"Let me think about where the number could be. ".repeat(30)}`;
    const result = await ask(profile, MAGIC, qwen);
    expect(result).toMatchObject({ status: "answered", answer: NEEDLE, producedBy: "model" });
    const [first, retry] = rootRequests();
    expect(retry!.lastUser.endsWith("/no_think")).toBe(true);
    expect(retry!.body.chat_template_kwargs).toEqual({ enable_thinking: false });
    expect(retry!.maxTokens!).toBeGreaterThan(first!.maxTokens!);
    expect(notes(result)).toMatch(/only thinking .* asked again with \/no_think, thinking off and a larger budget/);
  });

  it("§5 thinking again after the retry: the harness reads the document itself", async () => {
    stack.server.scripts.root = `<think>${"Hmm, where is it. ".repeat(40)}`;
    stack.server.scripts.sub = (req: ScriptedRequest) => (req.lastUser.includes(NEEDLE) ? NEEDLE : "NOT FOUND");
    const result = await ask(profile);
    expect(result.producedBy).toBe("fallback");
    expect(result.fallback?.reason).toMatch(/spent every reply thinking/);
    expect(rootRequests()).toHaveLength(2);
  });

  it("§6 a stray </think> after the code: the code runs, and the tag is not replayed", async () => {
    stack.server.scripts.root = [
      `I will search for it.\n${SEARCH}\n</think>\nWaiting for the output.`,
      `FINAL(${NEEDLE})\n</tool_response>`,
    ];
    const result = await ask(profile);
    expect(result).toMatchObject({ status: "answered", answer: NEEDLE });
    expect(result.iterations[0]!.code_blocks.map((b) => b.code)).toEqual(['print(search("odd-stew"))']);
    const replayed = rootRequests()[1]!
      .messages.filter((m) => m.role === "assistant")
      .map((m) => m.content);
    expect(replayed.join("\n")).not.toMatch(/<\/think>|<\/tool_response>/);
  });

  it("§7 'Final Answer: …' after the output is the final; before any output, and beside code, it is not", async () => {
    stack.server.scripts.root = [
      "Answer: 1234567",
      `${SEARCH}\nFinal Answer: 1234567`,
      `Thought: the output shows the number.\nFinal Answer: ${NEEDLE}`,
    ];
    const result = await ask(profile);
    expect(result).toMatchObject({ status: "answered", answer: NEEDLE, producedBy: "model" });
    expect(rootRequests()).toHaveLength(3);
  });

  it("§8 a bare fence saying `bash`, and a tool we do not have: never run, the re-prompt names the Python", async () => {
    const grep = '{"name": "grep", "arguments": {"pattern": "odd-stew"}}';
    stack.server.scripts.root = ["```\nbash\ngrep -c odd-stew haystack.txt\n```", SEARCH, grep, `FINAL(${NEEDLE})`];
    const result = await ask(profile);
    expect(result).toMatchObject({ status: "answered", answer: NEEDLE });
    expect(result.iterations[0]!.code_blocks).toEqual([]);
    expect(result.iterations[2]!.code_blocks).toEqual([]);
    expect(rootRequests()[1]!.lastUser).toContain(
      'In Python that is:\n```repl\nprint(sum(1 for line in context.split("\\n") if "odd-stew" in line))\n```',
    );
    // The second idle turn gets the short prompt, with the Python the tool call meant to copy.
    expect(rootRequests()[3]!.lastUser).toMatch(/```repl\nprint\((?:search\("odd-stew"\)|\[line for line in context)/);
  });

  it("§9 code, then FINAL_VAR(summary) and FINAL(…) in blocks of their own: the code runs, neither final is taken", async () => {
    stack.server.scripts.sub = "The minutes discuss the weather, the harvest and the roads.";
    stack.server.scripts.root = [
      [
        code('summary = llm_query("Summarise: " + context[:3000])\nprint(summary)'),
        code("FINAL_VAR(summary)"),
        code('FINAL("The committee discussed the harvest.")'),
      ].join("\n"),
      "FINAL_VAR(summary)",
    ];
    const result = await ask(profile, "What do the minutes discuss?");
    expect(result).toMatchObject({ status: "answered", answer: "The minutes discuss the weather, the harvest and the roads." });
    expect(rootRequests()).toHaveLength(2);
    expect(result.iterations[0]!.code_blocks).toHaveLength(1);
    expect(result.iterations[0]!.final_answer).toBeNull();
    expect(rootRequests()[1]!.lastUser).toMatch(
      /two different answers \(FINAL_VAR\(summary\) and FINAL\(The committee discussed the harvest\.\)\)/,
    );
  });
});
