// The weak-model simulator must itself be right: its sub-model labels OOLONG lines as the
// generator does, finds facts and needles, and its root fails at the rate it was given.
import { describe, expect, it } from "vitest";
import { planTasks } from "../../src/bench/plan.ts";
import { generateOolongDocument } from "../../src/bench/suites/oolong.ts";
import type { ScriptedRequest } from "../fixtures/scripted-server.ts";
import { FAILURE_MODES, chunkSubModel, labelInstance, planFor, questionOf, weakRoot, type FailureMode } from "../fixtures/weak-model.ts";

function request(messages: Array<{ role: string; content: string }>): ScriptedRequest {
  const users = messages.filter((m) => m.role === "user");
  return {
    model: "m",
    messages,
    stream: false,
    maxTokens: undefined,
    body: {},
    isRoot: messages.some((m) => m.role === "system"),
    turn: messages.filter((m) => m.role === "assistant").length,
    lastUser: users.at(-1)?.content ?? "",
    firstUser: users[0]?.content ?? "",
  };
}

describe("the simulator's sub-model", () => {
  it("labels every OOLONG line as the generator labelled it", () => {
    for (const seed of [1, 2, 3]) {
      const doc = generateOolongDocument({ size: 20_000, seed, kind: "count" });
      for (const r of doc.records) expect(labelInstance(r.text), r.text).toBe(r.label);
    }
  });

  it("answers needle and fact questions from the text it is given, and says NOT FOUND otherwise", () => {
    const sub = chunkSubModel();
    const ask = (content: string) => sub(request([{ role: "user", content }]));
    expect(
      ask(
        "Text: <<noise. One of the special magic numbers for odd-stew is: 1234567. more>> What is the special magic number for odd-stew?",
      ),
    ).toBe("1234567");
    expect(
      ask("Text: <<Filler. Ada Ashdown keeps a tabby cat named Pickle. More.>> Question: What is the name of Ada Ashdown's tabby cat?"),
    ).toBe("Pickle");
    expect(ask("Text: <<Nothing here.>> Question: In which town was Ivo Osgood born?")).toBe("NOT FOUND");
  });
});

describe("the simulator's root", () => {
  const specs = planTasks({ suites: ["niah", "docqa", "oolong", "oolong-pairs"], sizes: [28_000], seed: 3 });

  it("has a plan for every generated task kind", () => {
    for (const spec of specs) {
      const task = spec.build();
      expect(planFor(task.question), task.id).not.toBeNull();
    }
  });

  it("reads the question back from the harness's first message", () => {
    expect(questionOf("Question: Who?\n\n`context` is a str of 5 characters.")).toBe("Who?");
  });

  it("fails at about the rate it was given, in several catalogue modes", () => {
    const seen: FailureMode[] = [];
    const root = weakRoot({ seed: 7, failureRate: 0.3, onFailure: (m) => seen.push(m) });
    let turns = 0;
    for (let run = 0; run < 200; run++) {
      const first = `Question: What is the special magic number for odd-stew${run} mentioned in the provided text?\n\n\`context\` is a str.`;
      root(
        request([
          { role: "system", content: "s" },
          { role: "user", content: first },
        ]),
      );
      turns++;
    }
    expect(seen.length / turns).toBeGreaterThan(0.2);
    expect(seen.length / turns).toBeLessThan(0.4);
    expect(new Set(seen).size).toBeGreaterThan(FAILURE_MODES.length / 2);
  });

  it("a clean root advances through its plan from the tags its code printed", () => {
    const root = weakRoot({ failureRate: 0 });
    const first = "Question: What is the special magic number for odd-stew mentioned in the provided text?\n\n`context` is a str.";
    const t0 = root(
      request([
        { role: "system", content: "s" },
        { role: "user", content: first },
      ]),
    );
    expect(t0).toContain("re.search");
    const t1 = root(
      request([
        { role: "system", content: "s" },
        { role: "user", content: first },
        { role: "assistant", content: t0 },
        { role: "user", content: "REPL output:\n[s0] 1234567" },
      ]),
    );
    expect(t1).toMatch(/FINAL|answer\["ready"\]/);
  });
});
