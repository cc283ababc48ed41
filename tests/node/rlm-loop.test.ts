// The RLM loop end to end: real Pyodide in a worker thread, a scripted OpenAI-compatible server
// playing root and sub-model.
import { beforeEach, describe, expect, it } from "vitest";
import { runRlm } from "../../src/core/loop.ts";
import { RlmSession } from "../../src/core/session.ts";
import { parseJsonl } from "../../src/core/trajectory.ts";
import type { RlmEvent } from "../../src/core/types.ts";
import { createNodeRepl } from "../../src/repl/node.ts";
import { between, repl as code, type ScriptedRequest } from "../fixtures/scripted-server.ts";
import { visualizerProblems } from "../fixtures/visualizer-schema.ts";
import { runMetadata, toJsonl } from "../../src/core/trajectory.ts";
import { TEST_SNAPSHOT_DIR, config, engines, text } from "./helpers.ts";
import { useLoopStack } from "./loop-stack.ts";

const stack = useLoopStack({ contextWindow: 8192 });
beforeEach(async () => {
  stack.server.requests.length = 0;
  await stack.repl.resetNamespace();
});

/** The root's next step: checks the model was shown each of `shown` (contained or matched), then runs `next`. */
function afterSeeing(shown: (string | RegExp)[], next: string): (req: ScriptedRequest) => string {
  return (req) => {
    for (const s of shown) {
      if (typeof s === "string") expect(req.lastUser).toContain(s);
      else expect(req.lastUser).toMatch(s);
    }
    return code(next);
  };
}

async function ask(question: string, overrides: Parameters<typeof config>[0] = {}, events?: RlmEvent[], signal?: AbortSignal) {
  const { root, sub } = engines(stack.server);
  return runRlm({
    question,
    repl: stack.repl,
    rootEngine: root,
    subEngine: sub,
    config: config(overrides),
    ...(events ? { onEvent: (e: RlmEvent) => events.push(e) } : {}),
    ...(signal ? { signal } : {}),
  });
}

describe("the RLM loop", () => {
  it("finds a needle in a 20 MB haystack with regex and llm_query", async () => {
    const filler = "The quick brown fox jumps over the lazy dog. ".repeat((20 * 1024 * 1024) / 45);
    const at = Math.floor(filler.length * 0.63);
    const haystack = `${filler.slice(0, at)}\nNOTE: the vault code is 7319-ALPHA.\n${filler.slice(at)}`;
    await stack.repl.loadDocuments([{ name: "haystack.txt", data: text(haystack) }]);
    expect(stack.repl.contextInfo?.total_chars).toBeGreaterThan(20_000_000);

    stack.server.scripts.root = [
      code("print(len(context))\nprint(context[:100])"),
      code(
        [
          "import re",
          "m = re.search(r'vault code', context)",
          "window = context[m.start() - 200 : m.end() + 200]",
          "reply = llm_query('<<' + window + '>> What is the vault code?')",
          "print(reply)",
        ].join("\n"),
      ),
      // The root saw the sub-model's reply in the REPL output.
      afterSeeing(["7319-ALPHA"], "FINAL(reply)"),
    ];
    stack.server.scripts.sub = (req) => {
      const chunk = between(req.lastUser, "<<", ">>");
      const found = /vault code is ([\w-]+)/.exec(chunk);
      return found ? `The vault code is ${found[1]}` : "not here";
    };
    const events: RlmEvent[] = [];
    const result = await ask("What is the vault code?", {}, events);
    expect(result.status).toBe("answered");
    expect(result.answer).toBe("The vault code is 7319-ALPHA");
    // The document never entered the root model's prompt.
    const rootChars = stack.server.requests.filter((r) => r.isRoot).map((r) => JSON.stringify(r.messages).length);
    expect(Math.max(...rootChars)).toBeLessThan(20_000);
    // The sub-call was seen, counted and recorded under its cell.
    expect(result.usage.subcalls).toBe(1);
    expect(events.filter((e) => e.type === "subcall-finished")).toHaveLength(1);
    expect(result.iterations[1]?.code_blocks[0]?.result.rlm_calls[0]?.response).toContain("7319-ALPHA");
  });

  describe("finishing protocols", () => {
    beforeEach(async () => {
      await stack.repl.setContextText("alpha beta gamma");
    });

    it.each([
      ["FINAL in code", code("FINAL('forty-two')")],
      ["FINAL_VAR in code", code("result = 'forty-two'\nFINAL_VAR('result')")],
      ["answer dict", code("answer['content'] = 'forty-two'\nanswer['ready'] = True")],
      ["FINAL as text", "I have checked everything.\nFINAL(forty-two)"],
      ["FINAL with quotes as text", 'FINAL("forty-two")'],
    ])("%s ends the run with the answer", async (_name, reply) => {
      stack.server.scripts.root = [code("print(context[:20])"), reply];
      const result = await ask("What is the answer?");
      expect(result.status).toBe("answered");
      expect(result.answer).toBe("forty-two");
      expect(result.iterations).toHaveLength(2);
      expect(result.iterations[1]?.final_answer).toBe("forty-two");
    });

    it("FINAL_VAR as text reads the variable from the REPL", async () => {
      stack.server.scripts.root = [code("total = sum(range(10))\nprint(total)"), "Done.\nFINAL_VAR(total)"];
      const result = await ask("Sum?");
      expect(result.answer).toBe("45");
    });

    it("FINAL_VAR of a missing variable tells the model and keeps going", async () => {
      stack.server.scripts.root = ["FINAL_VAR(nothing_here)", afterSeeing(["no variable named 'nothing_here'"], "FINAL('recovered')")];
      const result = await ask("Q?");
      expect(result.answer).toBe("recovered");
    });

    it("a text FINAL written next to code is not accepted before the output is seen", async () => {
      stack.server.scripts.root = [code("x = 2 + 2\nprint(x)") + "\nFINAL(5)", afterSeeing(["not accepted"], "FINAL(x)")];
      const result = await ask("2+2?");
      expect(result.answer).toBe("4");
    });
  });

  it("runs several blocks of one reply in order and stops at the first answer", async () => {
    await stack.repl.setContextText("abc");
    stack.server.scripts.root = [
      [
        "First block:",
        "```repl\nsteps = ['one']\n```",
        "Second block:",
        "```python\nsteps.append('two')\nFINAL(' '.join(steps))\n```",
        "Third block must not run:",
        "```repl\nsteps.append('three')\nFINAL('wrong')\n```",
      ].join("\n"),
    ];
    const result = await ask("Q");
    expect(result.answer).toBe("one two");
    expect(result.iterations[0]?.code_blocks).toHaveLength(2);
  });

  it("keeps variables after a cell raises, and shows the error to the model", async () => {
    await stack.repl.setContextText("abc");
    stack.server.scripts.root = [
      code("kept = 41\nprint(undefined_name)"),
      afterSeeing(["NameError: name 'undefined_name' is not defined", "at line 2"], "FINAL(kept + 1)"),
    ];
    const result = await ask("Q");
    expect(result.answer).toBe("42");
  });

  it("asks for the best answer when the iteration cap is reached", async () => {
    await stack.repl.setContextText("abc");
    stack.server.scripts.root = (req) => {
      if (req.lastUser.includes("out of turns")) return "FINAL(best guess)";
      return code(`print(${req.turn})`);
    };
    const result = await ask("Q", { maxIterations: 3 });
    expect(result.status).toBe("out-of-iterations");
    expect(result.answer).toBe("best guess");
    // Three turns plus the final request; the final request is a user message (WebLLM requires it).
    const rootRequests = stack.server.requests.filter((r) => r.isRoot);
    expect(rootRequests).toHaveLength(4);
    expect(rootRequests[3]?.messages.at(-1)?.role).toBe("user");
    expect(result.iterations).toHaveLength(4);
    expect(result.iterations[3]?.iteration_time).toBeNull();
  });

  // Prose is never an answer (issue 13): the model's "best answer" in prose used to come back
  // with exit 0. Now the harness reads the document itself, and the result says so.
  it("answers through the fallback when a model never writes code, never with its prose", async () => {
    await stack.repl.loadDocuments([{ name: "memo.txt", data: text("The password is swordfish.") }]);
    stack.server.scripts.root = (req) => (req.lastUser.includes("out of turns") ? "It is probably abc." : "Let me think about it.");
    stack.server.scripts.sub = (req) =>
      req.lastUser.includes("Answers found in different parts")
        ? "swordfish"
        : (/password is (\w+)/.exec(req.lastUser)?.[1] ?? "NOT FOUND");
    const result = await ask("What is the password?", { maxIterations: 2 });
    expect(result.answer).not.toBe("It is probably abc.");
    expect(result.answer).toBe("swordfish");
    expect(result).toMatchObject({ status: "answered", producedBy: "fallback" });
    expect(stack.server.requests.filter((r) => r.isRoot)[1]?.lastUser).toContain("Nothing ran");
    const step = result.iterations.at(-1)!;
    expect(step.fallback?.chunks_read).toBe(1);
    // The pieces it read are the answer's sources, placed in the document like any other read.
    const piece = { doc: "memo.txt", start: 0, end: 26, line: 1, end_line: 1, kind: "prompt" };
    expect(step.code_blocks[0]?.result.rlm_calls.map((c) => c.sources)).toEqual([[piece], [piece]]);
    expect(result.sources?.[0]).toMatchObject({
      doc: "memo.txt",
      start: 0,
      end: 26,
      reasons: expect.arrayContaining(["subcall-answered"]),
    });
  });

  it("gives the cell an Error: string when a sub-call fails, and the run continues", async () => {
    await stack.repl.setContextText("abc");
    stack.server.scripts.root = [code("r = llm_query('please fail')\nprint(r)"), afterSeeing(["Error:", "HTTP 500"], "FINAL('handled')")];
    stack.server.scripts.sub = { text: "", status: 500, error: "backend exploded" };
    const events: RlmEvent[] = [];
    const result = await ask("Q", {}, events);
    expect(result.answer).toBe("handled");
    const finished = events.find((e) => e.type === "subcall-finished");
    expect(finished && "error" in finished && finished.error).toContain("backend exploded");
    expect(result.iterations[0]?.code_blocks[0]?.result.rlm_calls[0]?.error).toContain("backend exploded");
  });

  it("keeps batch order, and one failing prompt does not fail the batch", async () => {
    await stack.repl.setContextText("abc");
    stack.server.scripts.root = [
      code("out = llm_query_batched(['p0', 'p1', 'FAIL', 'p3', 'p4', 'p5'])\nprint(out)"),
      code("FINAL(' | '.join(out))"),
    ];
    // Later prompts answer sooner, so completion order differs from prompt order.
    stack.server.scripts.sub = (req) => {
      if (req.lastUser === "FAIL") return { text: "", status: 500, error: "no" };
      const n = Number(req.lastUser.slice(1));
      return { text: `answer-${n}`, delayMs: (6 - n) * 30 };
    };
    const result = await ask("Q", { maxConcurrentSubcalls: 6 });
    const parts = result.answer.split(" | ");
    expect(parts.slice(0, 2)).toEqual(["answer-0", "answer-1"]);
    expect(parts[2]).toMatch(/^Error:/);
    expect(parts.slice(3)).toEqual(["answer-3", "answer-4", "answer-5"]);
    expect(result.usage.subcalls).toBe(5);
  });

  it("refuses a sub-call prompt larger than the helper's window, with advice", async () => {
    await stack.repl.setContextText("abc");
    stack.server.scripts.root = [
      code("r = llm_query('x' * 200_000)\nprint(r)"),
      afterSeeing([/Error: the prompt is about [\d,]+ tokens/, "Split it into pieces"], "FINAL('ok')"),
    ];
    const result = await ask("Q");
    expect(result.answer).toBe("ok");
    expect(stack.server.requests.filter((r) => !r.isRoot)).toHaveLength(0);
  });

  it("stops counting sub-calls at the budget", async () => {
    await stack.repl.setContextText("abc");
    // Five different prompts: identical ones are answered once per run and cost nothing.
    stack.server.scripts.root = [code("out = llm_query_batched(['a%d' % i for i in range(5)])\nprint(out)"), code("FINAL(out[-1])")];
    stack.server.scripts.sub = "fine";
    const result = await ask("Q", { maxSubcalls: 3 });
    expect(result.answer).toMatch(/^Error: the sub-call budget is used up \(3 of 3\)/);
    expect(stack.server.requests.filter((r) => !r.isRoot)).toHaveLength(3);
  });

  it("shows a bounded view of a cell that prints 50 MB", async () => {
    await stack.repl.setContextText("abc");
    stack.server.scripts.root = [
      code("print('y' * 50_000_000)\nprint('END-MARK')"),
      (req) => {
        expect(req.lastUser.length).toBeLessThan(25_000);
        expect(req.lastUser).toContain("characters cut");
        expect(req.lastUser).toContain("END-MARK");
        return code("FINAL('survived')");
      },
    ];
    const result = await ask("Q");
    expect(result.answer).toBe("survived");
    expect(result.iterations[0]?.code_blocks[0]?.result.stdout.length).toBeLessThan(300_000);
  });

  it("stops the cycle after too many consecutive errors", async () => {
    await stack.repl.setContextText("abc");
    stack.server.scripts.root = (req) => (req.lastUser.includes("out of turns") ? "FINAL(gave up)" : code("1/0"));
    const result = await ask("Q", { maxConsecutiveErrors: 2, maxIterations: 10 });
    expect(result.status).toBe("too-many-errors");
    expect(result.answer).toBe("gave up");
    expect(stack.server.requests.filter((r) => r.isRoot)).toHaveLength(3);
  });

  it("Stop interrupts a runaway cell within a second and keeps the variables", async () => {
    await stack.repl.setContextText("abc");
    stack.server.scripts.root = [code("marker = 'kept'\nprint(marker)"), code("import time\nwhile True:\n    time.sleep(0.01)")];
    const controller = new AbortController();
    const events: RlmEvent[] = [];
    const pending = ask("Q", {}, events, controller.signal);
    while (!events.some((e) => e.type === "cell-started" && e.turn === 1)) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 200));
    const stoppedAt = Date.now();
    controller.abort();
    const result = await pending;
    expect(Date.now() - stoppedAt).toBeLessThan(1000);
    expect(result.status).toBe("stopped");
    expect((await stack.repl.runCell("print(marker)")).stdout.trim()).toBe("kept");
  });

  it("an abort during generation cancels the model call", async () => {
    await stack.repl.setContextText("abc");
    stack.server.scripts.root = [{ text: "", hang: true }];
    const controller = new AbortController();
    const pending = ask("Q", {}, undefined, controller.signal);
    await new Promise((r) => setTimeout(r, 200));
    controller.abort();
    const result = await pending;
    expect(result.status).toBe("stopped");
  });

  it("reports an unreachable model stack.server clearly", async () => {
    await stack.repl.setContextText("abc");
    const { OpenAIEngine } = await import("../../src/engines/openai.ts");
    const dead = new OpenAIEngine({ baseUrl: "http://127.0.0.1:9/v1", model: "m", contextWindow: 4096 });
    const result = await runRlm({ question: "Q", repl: stack.repl, rootEngine: dead, config: config() });
    expect(result.status).toBe("failed");
    expect(result.message).toContain("Could not reach the model server");
  });

  it("follow-up questions reuse REPL variables and see the earlier exchange", async () => {
    await stack.repl.setContextText("apples: 3\npears: 5\n");
    const { root, sub } = engines(stack.server);
    const session = new RlmSession({ createRepl: () => stack.repl, engines: () => ({ root, sub }), config: () => config() });
    stack.server.scripts.root = (req) => {
      if (req.firstUser.startsWith("Question: How many apples?")) {
        return req.turn === 0
          ? code("import re\ncounts = dict(re.findall(r'(\\w+): (\\d+)', context))\nprint(counts)")
          : code("FINAL(counts['apples'])");
      }
      // The follow-up: the earlier exchange is in the first message, `counts` still exists.
      expect(req.firstUser).toContain("How many apples?");
      expect(req.firstUser).toContain("A: 3");
      return code("FINAL(str(int(counts['apples']) + int(counts['pears'])) + ' / ' + history[0]['answer'])");
    };
    const first = await session.ask("How many apples?");
    expect(first.answer).toBe("3");
    const second = await session.ask("And apples plus pears?");
    expect(second.answer).toBe("8 / 3");
    expect(session.history).toHaveLength(2);

    // One JSONL export holds both questions, in the visualizer's schema.
    expect(visualizerProblems(session.exportJsonl())).toEqual([]);
    const { metadata, iterations } = parseJsonl(session.exportJsonl());
    expect(metadata?.root_model).toBe("root-model");
    expect(iterations.length).toBe(3);
    expect(iterations.map((i) => i.question_index)).toEqual([0, 0, 1]);
  });
});

describe("recursion", () => {
  it("rlm_query at depth 2 runs a child RLM with its own REPL", async () => {
    await stack.repl.setContextText("parent document");
    const childRepl = createNodeRepl({ snapshotDir: TEST_SNAPSHOT_DIR });
    let childUses = 0;
    stack.server.scripts.root = (req) => {
      const isChild = req.firstUser.includes("Summarise the numbers");
      if (isChild) {
        // The child's context is the task text, and its own llm_query is a plain call.
        if (req.turn === 0) return code("nums = [int(x) for x in context.split() if x.isdigit()]\nprint(nums)");
        return code("FINAL(str(sum(nums)) + ' via ' + llm_query('leaf?'))");
      }
      if (req.turn === 0) return code("r = rlm_query('Summarise the numbers 4 5 6')\nprint(r)");
      return code("FINAL(r)");
    };
    stack.server.scripts.sub = "leaf";
    const events: RlmEvent[] = [];
    const { root, sub } = engines(stack.server);
    try {
      const result = await runRlm({
        question: "Q",
        repl: stack.repl,
        rootEngine: root,
        subEngine: sub,
        config: config({ maxDepth: 2 }),
        onEvent: (e) => events.push(e),
        createChildRepl: async () => {
          childUses += 1;
          await childRepl.start();
          return { repl: childRepl, release: () => undefined };
        },
      });
      expect(result.answer).toBe("15 via leaf");
      expect(childUses).toBe(1);
      // The parent's variables did not leak into the child's REPL, nor the child's into the parent's.
      expect((await stack.repl.runCell("print('nums' in dir())")).stdout.trim()).toBe("False");
      // Child events are marked with their depth and the sub-call that started them.
      const childTurn = events.find((e) => e.type === "turn-started" && e.depth === 1);
      expect(childTurn?.parentSubcallId).toBeTruthy();
      // The child's trajectory is nested under the parent's sub-call record.
      const call = result.iterations[0]?.code_blocks[0]?.result.rlm_calls[0];
      expect(call?.metadata?.iterations.length).toBe(2);
      expect(call?.metadata?.iterations[1]?.code_blocks[0]?.result.rlm_calls[0]?.response).toBe("leaf");
      // The whole export, nested child included, opens in the official visualizer.
      const jsonl = toJsonl(runMetadata(root, sub, config({ maxDepth: 2 })), result.iterations);
      expect(visualizerProblems(jsonl)).toEqual([]);
      // The checker itself catches a broken line.
      expect(visualizerProblems(jsonl.replaceAll('"final_answer":null', '"final_answer":5'))).not.toEqual([]);
    } finally {
      childRepl.close();
    }
  });

  it("rlm_query at depth 1 is a plain sub-call", async () => {
    await stack.repl.setContextText("abc");
    stack.server.scripts.root = [code("r = rlm_query('hello')\nFINAL(r)")];
    stack.server.scripts.sub = (req) => `sub saw ${req.lastUser}`;
    const result = await ask("Q", { maxDepth: 1 });
    expect(result.answer).toBe("sub saw hello");
  });
});
